using System.Buffers;
using System.Buffers.Binary;
using System.Text.Json.Serialization.Metadata;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>
/// Key-value operations on one collection. Every method validates the key before sending
/// (<see cref="Exceptions.InvalidArgumentException"/> for an empty key or one over 250 UTF-8
/// bytes, 246 in a named collection) and fails with a typed exception naming the key. Await each
/// returned task once. Over couchbase:// the first operation waits for the bucket to open and,
/// on a named collection, for its id (<see cref="Exceptions.CollectionNotFoundException"/> when
/// it does not exist); later ones go straight out.
/// </summary>
public sealed partial class Collection
{
    private readonly Keyspace _keyspace;
    private readonly ClusterOptions _options;

    internal Collection(Keyspace keyspace, ClusterOptions options)
    {
        _keyspace = keyspace;
        _options = options;
        Binary = new BinaryCollection(this);
    }

    public string Name => _keyspace.CollectionName;

    public string ScopeName => _keyspace.ScopeName;

    public string BucketName => _keyspace.BucketName;

    /// <summary>Whether the bucket's cluster map lists <paramref name="capability"/>; false before the bucket has opened, or on classic clusters.</summary>
    internal bool HasBucketCapability(string capability) => _keyspace.Topology?.Map?.HasCapability(capability) ?? false;

    /// <summary>Counters and append/prepend, which work on raw bytes.</summary>
    public BinaryCollection Binary { get; }

    /// <summary>
    /// Reads a document; <see cref="Exceptions.DocumentNotFoundException"/> if it does not exist. With
    /// <see cref="GetOptions.WithExpiry"/> or <see cref="GetOptions.Projection"/> the read is a
    /// sub-document lookup, as in the official SDKs.
    /// </summary>
    public ValueTask<GetResult> GetAsync(string key, GetOptions? options = null) =>
        Get(key, missIsResult: false, options ?? Defaults<GetOptions>.Value);

    /// <summary>Reads a document; a missing one is a normal result with <see cref="GetResult.Found"/> false.</summary>
    public ValueTask<GetResult> TryGetAsync(string key, GetOptions? options = null) =>
        Get(key, missIsResult: true, options ?? Defaults<GetOptions>.Value);

    /// <summary>Reads a document and sets its expiry.</summary>
    public ValueTask<GetResult> GetAndTouchAsync(string key, TimeSpan expiry, GetAndTouchOptions? options = null) =>
        Read(Opcode.Gat, key, Expiry.ToWire(expiry, _options.TimeProvider, key), missIsResult: false, options ?? Defaults<GetAndTouchOptions>.Value);

    /// <summary>
    /// Reads and write-locks a document for <paramref name="lockTime"/> (or until unlocked, or replaced with the
    /// returned CAS). Needs a server with GET_LOCKED (ternd, Couchbase). Plain memcached 1.6 does not
    /// have it and answers unknown commands only once another request arrives on the connection:
    /// expect <see cref="Exceptions.FeatureNotAvailableException"/> or a timeout there.
    /// </summary>
    public ValueTask<GetResult> GetAndLockAsync(string key, TimeSpan lockTime, GetAndLockOptions? options = null) =>
        Read(Opcode.GetLocked, key, (uint)Math.Ceiling(lockTime.TotalSeconds), missIsResult: false, options ?? Defaults<GetAndLockOptions>.Value);

    /// <summary>
    /// Whether the document exists. Implemented with GET, which every memcached-protocol server has
    /// (plain memcached lacks GET_META): the value crosses the network but is not copied or decoded.
    /// </summary>
    public ValueTask<ExistsResult> ExistsAsync(string key, ExistsOptions? options = null) =>
        Send(ExistsOperation.Create(key, CollectionId), options ?? Defaults<ExistsOptions>.Value);

    /// <summary>Stores a document whether or not it exists.</summary>
    public ValueTask<MutationResult> UpsertAsync<T>(string key, T value, UpsertOptions? options = null) =>
        Store(Opcode.Set, key, value, null, options ?? Defaults<UpsertOptions>.Value);

    public ValueTask<MutationResult> UpsertAsync<T>(string key, T value, JsonTypeInfo<T> typeInfo, UpsertOptions? options = null) =>
        Store(Opcode.Set, key, value, typeInfo, options ?? Defaults<UpsertOptions>.Value);

    /// <summary>Stores a new document; <see cref="Exceptions.DocumentExistsException"/> if it exists.</summary>
    public ValueTask<MutationResult> InsertAsync<T>(string key, T value, InsertOptions? options = null) =>
        Store(Opcode.Add, key, value, null, options ?? Defaults<InsertOptions>.Value);

    public ValueTask<MutationResult> InsertAsync<T>(string key, T value, JsonTypeInfo<T> typeInfo, InsertOptions? options = null) =>
        Store(Opcode.Add, key, value, typeInfo, options ?? Defaults<InsertOptions>.Value);

    /// <summary>Replaces an existing document; <see cref="Exceptions.DocumentNotFoundException"/> if it does not exist.</summary>
    public ValueTask<MutationResult> ReplaceAsync<T>(string key, T value, ReplaceOptions? options = null) =>
        Store(Opcode.Replace, key, value, null, options ?? Defaults<ReplaceOptions>.Value);

    public ValueTask<MutationResult> ReplaceAsync<T>(string key, T value, JsonTypeInfo<T> typeInfo, ReplaceOptions? options = null) =>
        Store(Opcode.Replace, key, value, typeInfo, options ?? Defaults<ReplaceOptions>.Value);

    public ValueTask<MutationResult> RemoveAsync(string key, RemoveOptions? options = null)
    {
        options ??= Defaults<RemoveOptions>.Value;
        return Mutate(Opcode.Delete, key, default, options.Cas, default, options, options.Durability);
    }

    /// <summary>Sets a document's expiry without reading it.</summary>
    public ValueTask<MutationResult> TouchAsync(string key, TimeSpan expiry, TouchOptions? options = null)
    {
        Span<byte> extras = stackalloc byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(extras, Expiry.ToWire(expiry, _options.TimeProvider, key));
        return Mutate(Opcode.Touch, key, extras, 0, default, options ?? Defaults<TouchOptions>.Value, DurabilityLevel.None);
    }

    /// <summary>Releases a lock taken by <see cref="GetAndLockAsync"/>, given the CAS it returned.</summary>
    public ValueTask<MutationResult> UnlockAsync(string key, ulong cas, UnlockOptions? options = null) =>
        Mutate(Opcode.UnlockKey, key, default, cas, default, options ?? Defaults<UnlockOptions>.Value, DurabilityLevel.None);

    internal ValueTask<MutationResult> Mutate(Opcode opcode, string key, ReadOnlySpan<byte> extras, ulong cas,
        ReadOnlySpan<byte> value, OperationOptions options, DurabilityLevel durability)
    {
        Span<byte> framing = stackalloc byte[FramingExtras.MaxRequestLength];
        var framingLength = WriteFraming(framing, key, durability, preserveTtl: false, options);
        var operation = MutationOperation.Create(opcode, key, CollectionId, extras, cas, framing[..framingLength], durability);
        operation.Request.Write(value);
        operation.Seal();
        return Send(operation, options);
    }

    /// <summary>
    /// Sends an encoded operation. Until the keyspace is resolved (couchbase://: bucket open,
    /// collection id known) it first waits for that, within the operation's timeout, and then
    /// writes the real collection id into the key's prefix.
    /// </summary>
    internal ValueTask<TResult> Send<TResult>(Operation<TResult> operation, OperationOptions options)
    {
        operation.Keyspace = _keyspace;
        var timeout = TimeoutOf(options, operation.Durability);
        // IsResolved is read before the id: a key encoded while the id was still being looked up
        // (or refreshed) carries another prefix and takes the slow path, which rewrites it.
        if (_keyspace.IsResolved && operation.Request.CollectionId == _keyspace.Prefix)
            return _keyspace.Dispatcher.SendAsync(operation, timeout, options.CancellationToken);
        return SendAfterResolvingAsync(operation, timeout, options.CancellationToken);
    }

    private async ValueTask<TResult> SendAfterResolvingAsync<TResult>(Operation<TResult> operation, TimeSpan timeout, CancellationToken cancellationToken)
    {
        // The clock starts now, so the wait for the bucket and the collection id counts against the timeout.
        operation.Start(timeout, _options.TimeProvider, cancellationToken);
        // An operation that fails here was never handed out: it is simply not returned to its pool.
        var id = await _keyspace.ResolveAsync(operation).ConfigureAwait(false);
        if (operation.Request.CollectionId != id)
            operation.Request.ChangeCollectionPrefix(id);
        return await _keyspace.Dispatcher.SendStartedAsync(operation).ConfigureAwait(false);
    }

    /// <summary>
    /// Writes the alt-request frames a mutation needs (durability, preserve-TTL); returns their
    /// length. Classic clusters have no such frames: asking for them there is an error.
    /// </summary>
    internal int WriteFraming(Span<byte> destination, string key, DurabilityLevel durability, bool preserveTtl, OperationOptions options)
    {
        if (durability == DurabilityLevel.None && !preserveTtl)
            return 0;
        if (_keyspace.Prefix is null)
            throw new FeatureNotAvailableException(
                $"{(durability != DurabilityLevel.None ? $"durability {durability}" : "preserving the expiry")} needs couchbase://; " +
                $"key '{TernException.Describe(key)}' was not sent", key);
        var length = 0;
        if (durability != DurabilityLevel.None)
            length += FramingExtras.WriteDurability(destination, durability,
                FramingExtras.DurabilityTimeout(TimeoutOf(options, durability)));
        if (preserveTtl)
            length += FramingExtras.WritePreserveTtl(destination[length..]);
        return length;
    }

    /// <summary>The operation's timeout: its own, else the cluster's for its kind of write.</summary>
    private TimeSpan TimeoutOf(OperationOptions options, DurabilityLevel durability) =>
        options.Timeout ?? (durability == DurabilityLevel.None ? _options.KvTimeout : _options.KvDurabilityTimeout);

    /// <summary>The key prefix to encode with: null on classic clusters, else the collection id (0 until resolved).</summary>
    internal uint? CollectionId => _keyspace.Prefix;

    /// <summary>The cluster's clock, which dates expiries beyond 30 days.</summary>
    internal TimeProvider TimeProvider => _options.TimeProvider;

    private ValueTask<GetResult> Get(string key, bool missIsResult, GetOptions options) =>
        options.NeedsLookupIn ? GetThroughLookupIn(key, missIsResult, options) : Read(Opcode.Get, key, 0, missIsResult, options);

    private ValueTask<GetResult> Read(Opcode opcode, string key, uint argument, bool missIsResult, TranscodingOptions options) =>
        Send(GetOperation.Create(opcode, key, CollectionId, argument, missIsResult, options.Transcoder ?? _options.Transcoder), options);

    private ValueTask<MutationResult> Store<T>(Opcode opcode, string key, T value, JsonTypeInfo<T>? typeInfo, StoreOptions options)
    {
        Span<byte> extras = stackalloc byte[8];
        BinaryPrimitives.WriteUInt32BigEndian(extras[4..], Expiry.ToWire(options.Expiry, _options.TimeProvider, key));
        var preserveTtl = options is UpsertOptions { PreserveTtl: true } or ReplaceOptions { PreserveTtl: true };
        Span<byte> framing = stackalloc byte[FramingExtras.MaxRequestLength];
        var framingLength = WriteFraming(framing, key, options.Durability, preserveTtl, options);
        var operation = MutationOperation.Create(opcode, key, CollectionId, extras, options.Cas, framing[..framingLength], options.Durability);
        uint flags;
        Datatype datatype;
        if (typeInfo is not null)
        {
            JsonTranscoder.WriteJson(operation.Request, value, typeInfo);
            (flags, datatype) = (DocumentFlags.Json, Datatype.Json);
        }
        else
        {
            (options.Transcoder ?? _options.Transcoder).Encode(operation.Request, value, out flags, out datatype);
        }
        operation.Request.PatchExtras(0, flags);
        if (_keyspace.Compression is { } compression)
            datatype = compression.Compress(operation.Request, datatype);
        operation.Seal(datatype);
        return Send(operation, options);
    }
}
