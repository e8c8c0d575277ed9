using System.Buffers.Binary;
using Tern.Client.Couchbase;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.SubDoc;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>Sub-document operations: read and change parts of a JSON document without moving all of it.</summary>
public sealed partial class Collection
{
    /// <summary>
    /// Reads parts of a document: <paramref name="configureBuilder"/> adds the specs (e.g.
    /// <c>specs => specs.Get("a.b").Exists("c").Count("d")</c>), whose results the returned
    /// <see cref="LookupInResult"/> gives by index. Always one SUBDOC_MULTI_LOOKUP, as the official
    /// SDKs send it. A missing document throws <see cref="Exceptions.DocumentNotFoundException"/>; a
    /// failing spec fails only its own entry. Bad specs (none, more than 16, a path over 1024 bytes)
    /// throw <see cref="ArgumentException"/> before anything is sent.
    /// </summary>
    public ValueTask<LookupInResult> LookupInAsync(string key, Action<LookupInSpecBuilder> configureBuilder, LookupInOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(configureBuilder);
        options ??= Defaults<LookupInOptions>.Value;
        var docFlags = options.AccessDeleted ? SubdocDocFlags.AccessDeleted : SubdocDocFlags.None;
        var operation = EncodeLookupIn(key, configureBuilder, static (builder, configure) => configure(builder), docFlags,
            options.Transcoder ?? _options.Transcoder, missIsResult: false);
        return Send(operation, options);
    }

    /// <summary>
    /// Changes parts of a document atomically: <paramref name="configureBuilder"/> adds the specs
    /// (e.g. <c>specs => specs.Upsert("a", v, createPath: true).ArrayAppend("t", x).Increment("n", 1)</c>),
    /// applied all or none. Always one SUBDOC_MULTI_MUTATION, as the official SDKs send it. A failing
    /// spec makes the call throw its <see cref="Exceptions.SubDocException"/> (naming the path and the
    /// index) and changes nothing; document-level failures throw as the other mutations do
    /// (<see cref="Exceptions.DocumentNotFoundException"/>, <see cref="Exceptions.DocumentExistsException"/>,
    /// <see cref="Exceptions.CasMismatchException"/>...). Bad specs (none, more than 16, a path over 1024
    /// bytes) throw <see cref="ArgumentException"/> before anything is sent.
    /// </summary>
    public ValueTask<MutateInResult> MutateInAsync(string key, Action<MutateInSpecBuilder> configureBuilder, MutateInOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(configureBuilder);
        options ??= Defaults<MutateInOptions>.Value;
        Span<byte> extras = stackalloc byte[2 * sizeof(uint) + 1];
        var extrasLength = WriteMutateInExtras(extras, key, options);
        Span<byte> framing = stackalloc byte[FramingExtras.MaxRequestLength];
        var framingLength = WriteFraming(framing, key, options.Durability, options.PreserveTtl, options);
        var transcoder = options.Transcoder ?? _options.Transcoder;
        var builder = MutateInSpecBuilder.Rent(key, transcoder);
        MutateInOperation operation;
        try
        {
            configureBuilder(builder);
            operation = MutateInOperation.Create(key, CollectionId, builder, extras[..extrasLength], options.Cas,
                framing[..framingLength], options.Durability, transcoder);
            if (options.UserFlags is not null)
                operation.Request.Require(HelloFeature.SubdocBinaryXattr);
        }
        finally
        {
            builder.Return();
        }
        return Send(operation, options);
    }

    /// <summary>GetAsync/TryGetAsync with an expiry or a projection: one multi-lookup, as the official SDKs read them.</summary>
    private ValueTask<GetResult> GetThroughLookupIn(string key, bool missIsResult, GetOptions options)
    {
        var plan = new LookupInGet(options);
        var transcoder = options.Transcoder ?? _options.Transcoder;
        var operation = EncodeLookupIn(key, plan, static (builder, plan) => plan.AddSpecs(builder), SubdocDocFlags.None,
            transcoder, missIsResult);
        return LookupInGet.CompleteAsync(plan, Send(operation, options), transcoder);
    }

    /// <summary>Fills a (thread-cached) builder through <paramref name="configure"/> and encodes the request from it.</summary>
    private LookupInOperation EncodeLookupIn<TState>(string key, TState state, Action<LookupInSpecBuilder, TState> configure,
        SubdocDocFlags docFlags, ITypeTranscoder transcoder, bool missIsResult)
    {
        var builder = LookupInSpecBuilder.Rent(key);
        try
        {
            configure(builder, state);
            return LookupInOperation.Create(key, CollectionId, builder.Specs, docFlags, transcoder, missIsResult);
        }
        finally
        {
            builder.Return();
        }
    }

    /// <summary>
    /// A multi-mutation's extras: the expiry (u32) when there is one or user flags follow, the user
    /// flags (u32) when set, then the doc flags (u8) when there are any; 0, 1, 4, 5, 8 or 9 bytes.
    /// Returns their length.
    /// </summary>
    private int WriteMutateInExtras(Span<byte> destination, string key, MutateInOptions options)
    {
        var length = 0;
        var expiry = Expiry.ToWire(options.Expiry, _options.TimeProvider, key);
        if (expiry != 0 || options.UserFlags is not null)
        {
            BinaryPrimitives.WriteUInt32BigEndian(destination, expiry);
            length = sizeof(uint);
        }
        if (options.UserFlags is { } userFlags)
        {
            BinaryPrimitives.WriteUInt32BigEndian(destination[length..], userFlags);
            length += sizeof(uint);
        }
        var docFlags = options.StoreSemantics switch
        {
            StoreSemantics.Upsert => SubdocDocFlags.Mkdoc,
            StoreSemantics.Insert => SubdocDocFlags.Add,
            _ => SubdocDocFlags.None,
        };
        if (options.AccessDeleted)
            docFlags |= SubdocDocFlags.AccessDeleted;
        if (options.CreateAsDeleted)
            docFlags |= SubdocDocFlags.CreateAsDeleted;
        if (options.ReviveDocument)
            docFlags |= SubdocDocFlags.ReviveDocument;
        if (docFlags != SubdocDocFlags.None)
            destination[length++] = (byte)docFlags;
        return length;
    }
}
