using System.Buffers;
using System.Text.Json;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.Transactions;

/// <summary>
/// The transaction protocol's requests, sent through the SDK's own collections: each method is one
/// sub-document lookup or mutation (or plain KV write) laid out as the official SDKs lay it out,
/// so their transactions and cleanup read what this one writes, and the other way round.
/// </summary>
internal sealed partial class CollectionTransactionKv(Func<TransactionKeyspace, Collection> collections) : ITransactionKv
{
    private const string Txn = "txn";
    private const string StagedJsonPath = "txn.op.stgd";
    private const string StagedBinaryPath = "txn.op.bin";

    // The document lookup's specs, in this order (as the official SDKs read a document in a transaction).
    private const int IdSpec = 0, AtrSpec = 1, TypeSpec = 2, StagedJsonSpec = 3, Crc32Spec = 4, FcSpec = 5, DocumentSpec = 6,
        StagedBinarySpec = 7, AuxSpec = 8, BodySpec = 9;

    // An ATR's body is one zero byte: the entries live in its XATTRs.
    private static readonly byte[] AtrBody = [0];

    public async ValueTask<TxnDocument?> GetAsync(DocId id, CancellationToken cancellationToken)
    {
        LookupInResult result;
        try
        {
            result = await Of(id).LookupInAsync(id.Key, static specs => specs
                    .Get("txn.id", isXattr: true)
                    .Get("txn.atr", isXattr: true)
                    .Get("txn.op.type", isXattr: true)
                    .Get(StagedJsonPath, isXattr: true)
                    .Get("txn.op.crc32", isXattr: true)
                    .Get("txn.fc", isXattr: true)
                    .Get("$document", isXattr: true)
                    .GetBinaryXattr(StagedBinaryPath)
                    .Get("txn.aux", isXattr: true)
                    .GetFull(),
                new LookupInOptions { AccessDeleted = true, CancellationToken = cancellationToken }).ConfigureAwait(false);
        }
        catch (DocumentNotFoundException)
        {
            return null;
        }
        using (result)
        {
            var metadata = ReadMetadata(Value(result, DocumentSpec));
            var links = ReadLinks(result);
            var body = result.Exists(BodySpec) ? result.ContentMemory(BodySpec).ToArray() : [];
            return new TxnDocument(id, result.Cas, result.IsDeleted, body, metadata.Flags ?? DocumentFlags.Json, links, metadata);
        }
    }

    public async ValueTask<AtrDocument?> GetAtrAsync(DocId atr, CancellationToken cancellationToken)
    {
        LookupInResult result;
        try
        {
            result = await Of(atr).LookupInAsync(atr.Key, static specs => specs.Get("attempts", isXattr: true).Get("$vbucket", isXattr: true),
                new LookupInOptions { CancellationToken = cancellationToken }).ConfigureAwait(false);
        }
        catch (DocumentNotFoundException)
        {
            return null;
        }
        using (result)
            return new AtrDocument(TxnJson.Entries(Element(result, 0)), TxnJson.HlcNowMs(Element(result, 1)));
    }

    public async ValueTask WriteAtrPendingAsync(DocId atr, AtrPendingWrite write, CancellationToken cancellationToken)
    {
        var prefix = $"attempts.{write.AttemptId}.";
        await Of(atr).MutateInAsync(atr.Key, specs => specs
                .Insert(prefix + "tid", write.TransactionId, createPath: true, isXattr: true)
                .Insert(prefix + "st", AttemptStates.Name(AttemptState.Pending), createPath: true, isXattr: true)
                .Insert(prefix + "tst", MutationMacro.Cas, createPath: true)
                .Insert(prefix + "exp", write.ExpiresAfterMs, createPath: true, isXattr: true)
                .Insert(prefix + "d", DurabilityCodes.Code(write.Durability), createPath: true, isXattr: true)
                .SetDocRaw(AtrBody),
            new MutateInOptions
            {
                StoreSemantics = StoreSemantics.Upsert, Durability = write.Durability, CancellationToken = cancellationToken,
            }).ConfigureAwait(false);
    }

    public async ValueTask WriteAtrOutcomeAsync(DocId atr, AtrOutcomeWrite write, CancellationToken cancellationToken)
    {
        var prefix = $"attempts.{write.AttemptId}.";
        var committed = write.State == AttemptState.Committed;
        var (inserted, replaced, removed) =
            (TxnJson.DocList(write.Docs.Inserted), TxnJson.DocList(write.Docs.Replaced), TxnJson.DocList(write.Docs.Removed));
        await Of(atr).MutateInAsync(atr.Key, specs =>
            {
                // No createPath on a commit's state: if cleanup removed the entry, the commit must fail, not recreate it.
                specs.Upsert(prefix + "st", AttemptStates.Name(write.State), createPath: !committed, isXattr: true)
                    .Upsert(prefix + (committed ? "tsc" : "tsrs"), MutationMacro.Cas, createPath: !committed);
                if (committed)
                    specs.Insert(prefix + "p", 0, isXattr: true);
                specs.UpsertJson(prefix + "ins", inserted, isXattr: true, createPath: true)
                    .UpsertJson(prefix + "rep", replaced, isXattr: true, createPath: true)
                    .UpsertJson(prefix + "rem", removed, isXattr: true, createPath: true);
            },
            new MutateInOptions { Durability = write.Durability, CancellationToken = cancellationToken }).ConfigureAwait(false);
    }

    public async ValueTask RemoveAtrEntryAsync(DocId atr, string attemptId, bool guardPending, DurabilityLevel durability,
        CancellationToken cancellationToken)
    {
        var entry = $"attempts.{attemptId}";
        await Of(atr).MutateInAsync(atr.Key, specs =>
            {
                if (guardPending)
                    specs.Insert(entry + ".p", 0, isXattr: true);
                specs.Remove(entry, isXattr: true);
            },
            new MutateInOptions { Durability = durability, CancellationToken = cancellationToken }).ConfigureAwait(false);
    }

    public async ValueTask<ulong> StageAsync(DocId id, StageWrite write, CancellationToken cancellationToken)
    {
        var insert = write.Type == StagedType.Insert;
        var result = await Of(id).MutateInAsync(id.Key, specs =>
            {
                specs.UpsertJson(Txn, write.Links.Span, isXattr: true, createPath: true);
                if (write.Content is { } content)
                {
                    if (write.Binary)
                        specs.UpsertBinaryXattr(StagedBinaryPath, content.Span);
                    else
                        specs.UpsertJson(StagedJsonPath, content.Span, isXattr: true);
                }
                specs.Upsert("txn.op.crc32", MutationMacro.ValueCRC32c, createPath: true);
            },
            new MutateInOptions
            {
                Cas = write.Cas,
                StoreSemantics = insert && write.Cas == 0 ? StoreSemantics.Insert : StoreSemantics.Replace,
                AccessDeleted = write.AccessDeleted,
                CreateAsDeleted = insert && write.Cas == 0,
                UserFlags = write.UserFlags,
                Durability = write.Durability,
                CancellationToken = cancellationToken,
            }).ConfigureAwait(false);
        return result.Cas;
    }

    public async ValueTask<ulong> UnlinkAsync(DocId id, UnlinkWrite write, CancellationToken cancellationToken)
    {
        var result = await Of(id).MutateInAsync(id.Key, static specs => specs.Remove(Txn, isXattr: true),
            new MutateInOptions
            {
                Cas = write.Cas, AccessDeleted = write.AccessDeleted, UserFlags = write.UserFlags, Durability = write.Durability,
                CancellationToken = cancellationToken,
            }).ConfigureAwait(false);
        return result.Cas;
    }

    public async ValueTask<ulong> CommitAsync(DocId id, CommitWrite write, CancellationToken cancellationToken)
    {
        var collection = Of(id);
        if (write.FromTombstone && !write.BodyFromXattr)
        {
            // Without ReviveDocument a tombstone becomes a document again by a plain insert.
            var inserted = await collection.InsertAsync(id.Key, write.Content, new InsertOptions
            {
                Durability = write.Durability, Transcoder = new StagedContentTranscoder(write.Flags), CancellationToken = cancellationToken,
            }).ConfigureAwait(false);
            return inserted.Cas;
        }
        var result = await collection.MutateInAsync(id.Key, specs =>
            {
                if (write.BodyFromXattr)
                    specs.ReplaceBodyWithXattr(write.Binary ? StagedBinaryPath : StagedJsonPath, write.Binary);
                specs.Remove(Txn, isXattr: true);
                if (!write.BodyFromXattr)
                    specs.SetDocRaw(write.Content.Span);
            },
            new MutateInOptions
            {
                Cas = write.Cas,
                AccessDeleted = write.FromTombstone,
                ReviveDocument = write.FromTombstone,
                UserFlags = write.Flags,
                Durability = write.Durability,
                CancellationToken = cancellationToken,
            }).ConfigureAwait(false);
        return result.Cas;
    }

    public async ValueTask RemoveAsync(DocId id, ulong cas, DurabilityLevel durability, CancellationToken cancellationToken) =>
        await Of(id).RemoveAsync(id.Key, new RemoveOptions { Cas = cas, Durability = durability, CancellationToken = cancellationToken })
            .ConfigureAwait(false);

    public bool CanRevive(string bucket) => collections(new TransactionKeyspace(bucket)).HasBucketCapability("subdoc.ReviveDocument");

    private Collection Of(DocId id) => collections(id.Keyspace);

    private static TxnLinks? ReadLinks(LookupInResult result)
    {
        var id = Value(result, IdSpec);
        var atr = Value(result, AtrSpec);
        if (id.IsEmpty && atr.IsEmpty)
            return null;
        return new TxnLinks(
            JsonFields.String(id, "txn"u8),
            JsonFields.String(id, "atmpt"u8),
            JsonFields.String(id, "op"u8),
            JsonFields.String(atr, "id"u8),
            JsonFields.String(atr, "bkt"u8),
            JsonFields.String(atr, "scp"u8),
            JsonFields.String(atr, "coll"u8),
            StagedTypes.Parse(JsonFields.String(Value(result, TypeSpec))),
            result.Exists(StagedJsonSpec) ? result.ContentMemory(StagedJsonSpec).ToArray() : null,
            result.Exists(StagedBinarySpec) ? result.ContentMemory(StagedBinarySpec).ToArray() : null,
            JsonFields.UInt32(Value(result, AuxSpec), "uf"u8),
            JsonFields.String(Value(result, Crc32Spec)),
            result.Exists(FcSpec) ? ForwardCompat.From(Element(result, FcSpec)) : ForwardCompat.None);
    }

    /// <summary>The <c>$document</c> XATTR's fields a staged change records to restore, and the flags.</summary>
    private static DocumentMetadata ReadMetadata(ReadOnlySpan<byte> document) =>
        document.IsEmpty
            ? DocumentMetadata.None
            : new DocumentMetadata(JsonFields.String(document, "CAS"u8), JsonFields.String(document, "revid"u8),
                JsonFields.UInt32(document, "exptime"u8), JsonFields.String(document, "value_crc32c"u8), JsonFields.UInt32(document, "flags"u8));

    /// <summary>A spec's raw JSON value; empty when its path is missing.</summary>
    private static ReadOnlySpan<byte> Value(LookupInResult result, int index) =>
        result.Exists(index) ? result.Content(index) : default;

    /// <summary>A spec's JSON value, or an undefined element when its path is missing.</summary>
    private static JsonElement Element(LookupInResult result, int index)
    {
        if (!result.Exists(index))
            return default;
        var reader = new Utf8JsonReader(result.ContentMemory(index).Span);
        return JsonElement.TryParseValue(ref reader, out var element) ? element.Value : default;
    }
}

/// <summary>Writes content that is already encoded (a staged document) with the flags it was staged with.</summary>
internal sealed class StagedContentTranscoder(uint flags) : ITypeTranscoder
{
    public void Encode<T>(IBufferWriter<byte> destination, T value, out uint documentFlags, out Datatype datatype)
    {
        destination.Write(value is ReadOnlyMemory<byte> content ? content.Span : throw new ArgumentException("staged content is bytes"));
        documentFlags = flags;
        datatype = (flags & 0xff000000) == DocumentFlags.Json ? Datatype.Json : Datatype.Raw;
    }

    public T? Decode<T>(ReadOnlySpan<byte> content, uint documentFlags, Datatype datatype) => throw new NotSupportedException();
}
