using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>What every operation accepts. A null options argument means all defaults.</summary>
public abstract record OperationOptions
{
    /// <summary>Overrides <see cref="ClusterOptions.KvTimeout"/> for this operation.</summary>
    public TimeSpan? Timeout { get; init; }

    public CancellationToken CancellationToken { get; init; }
}

/// <summary>Options of operations that decode or encode content.</summary>
public abstract record TranscodingOptions : OperationOptions
{
    /// <summary>Overrides <see cref="ClusterOptions.Transcoder"/> for this operation.</summary>
    public ITypeTranscoder? Transcoder { get; init; }
}

public sealed record GetOptions : TranscodingOptions
{
    /// <summary>
    /// Also read the document's expiry into <see cref="GetResult.ExpiryTime"/>. Like the official SDKs,
    /// the read is then a sub-document lookup (the <c>$document</c> virtual XATTR and the body), which
    /// needs a server with sub-document support (ternd, Couchbase Server; not plain memcached).
    /// </summary>
    public bool WithExpiry { get; init; }

    /// <summary>
    /// Read only these paths (e.g. <c>name</c>, <c>address.city</c>, <c>tags[0]</c>): the content is one
    /// JSON object holding each path that exists, at its place in the document's structure, so
    /// <see cref="GetResult.ContentAs{T}()"/> reads them as a document; missing paths are left out. A
    /// sub-document lookup of each path (not on plain memcached); beyond 16 paths (15 with
    /// <see cref="WithExpiry"/>) the whole document is read and projected here, as the official SDKs do.
    /// </summary>
    public IReadOnlyList<string>? Projection { get; init; }

    /// <summary>True when the read must be a sub-document lookup rather than GET.</summary>
    internal bool NeedsLookupIn => WithExpiry || Projection is { Count: > 0 };
}

public sealed record GetAndTouchOptions : TranscodingOptions;

public sealed record GetAndLockOptions : TranscodingOptions;

public sealed record ExistsOptions : OperationOptions;

/// <summary>Options of Upsert, Insert and Replace.</summary>
public abstract record StoreOptions : TranscodingOptions
{
    /// <summary>How long the document lives; null or zero keeps it until removed. Over 30 days is sent as an absolute time.</summary>
    public TimeSpan? Expiry { get; init; }

    /// <summary>Non-zero: store only if the document's CAS still equals this (else <see cref="Exceptions.CasMismatchException"/>).</summary>
    public ulong Cas { get; init; }

    /// <summary>How durable the write must be before it is acknowledged (needs couchbase://).</summary>
    public DurabilityLevel Durability { get; init; }
}

/// <summary>Upsert: also keeps the document's current expiry if asked to.</summary>
public sealed record UpsertOptions : StoreOptions
{
    /// <summary>Keep the expiry the document has instead of setting <see cref="StoreOptions.Expiry"/> (needs couchbase://).</summary>
    public bool PreserveTtl { get; init; }
}

public sealed record InsertOptions : StoreOptions;

public sealed record ReplaceOptions : StoreOptions
{
    /// <summary>Keep the expiry the document has instead of setting <see cref="StoreOptions.Expiry"/> (needs couchbase://).</summary>
    public bool PreserveTtl { get; init; }
}

public sealed record RemoveOptions : OperationOptions
{
    public ulong Cas { get; init; }

    /// <summary>How durable the removal must be before it is acknowledged (needs couchbase://).</summary>
    public DurabilityLevel Durability { get; init; }
}

public sealed record TouchOptions : OperationOptions;

public sealed record UnlockOptions : OperationOptions;

/// <summary>Options of Append and Prepend.</summary>
public sealed record AdjoinOptions : OperationOptions
{
    public ulong Cas { get; init; }

    /// <summary>How durable the write must be before it is acknowledged (needs couchbase://).</summary>
    public DurabilityLevel Durability { get; init; }
}

/// <summary>Options of Increment and Decrement.</summary>
public sealed record CounterOptions : OperationOptions
{
    public ulong Delta { get; init; } = 1;

    /// <summary>The value a missing counter is created with; null makes a missing counter fail with <see cref="Exceptions.DocumentNotFoundException"/>.</summary>
    public ulong? Initial { get; init; } = 1;

    /// <summary>Expiry of a counter created by this call.</summary>
    public TimeSpan? Expiry { get; init; }

    /// <summary>How durable the write must be before it is acknowledged (needs couchbase://).</summary>
    public DurabilityLevel Durability { get; init; }
}

/// <summary>Options of LookupIn.</summary>
public sealed record LookupInOptions : TranscodingOptions
{
    /// <summary>Read the document even when it is deleted (a tombstone, whose system XATTRs survive); see <see cref="LookupInResult.IsDeleted"/>.</summary>
    public bool AccessDeleted { get; init; }
}

/// <summary>Options of MutateIn.</summary>
public sealed record MutateInOptions : TranscodingOptions
{
    /// <summary>The document's new expiry; null or zero: none (or, with <see cref="PreserveTtl"/>, the one it has).</summary>
    public TimeSpan? Expiry { get; init; }

    /// <summary>Non-zero: apply only if the document's CAS still equals this (else <see cref="Exceptions.CasMismatchException"/>).</summary>
    public ulong Cas { get; init; }

    /// <summary>Whether the document must exist (Replace, the default), may be created (Upsert) or must be created (Insert).</summary>
    public StoreSemantics StoreSemantics { get; init; }

    /// <summary>How durable the write must be before it is acknowledged (needs couchbase://).</summary>
    public DurabilityLevel Durability { get; init; }

    /// <summary>Keep the expiry the document has (needs couchbase://).</summary>
    public bool PreserveTtl { get; init; }

    /// <summary>Change the document even when it is deleted (a tombstone): typically its system XATTRs.</summary>
    public bool AccessDeleted { get; init; }

    /// <summary>
    /// Create the document as a tombstone (with <see cref="StoreSemantics"/> Upsert or Insert, and
    /// <see cref="AccessDeleted"/>), as transactions do for staged inserts.
    /// </summary>
    public bool CreateAsDeleted { get; init; }

    /// <summary>Revive a tombstone (with <see cref="AccessDeleted"/>): how transactions commit a staged insert.</summary>
    internal bool ReviveDocument { get; init; }

    /// <summary>The document's new user flags (common flags), sent in the extras after the expiry; the server needs HELLO SubdocBinaryXattr for them. Transactions set a binary document's flags this way.</summary>
    internal uint? UserFlags { get; init; }
}

/// <summary>The shared all-defaults instance of an options type, used when a caller passes null.</summary>
internal static class Defaults<T> where T : new()
{
    public static readonly T Value = new();
}
