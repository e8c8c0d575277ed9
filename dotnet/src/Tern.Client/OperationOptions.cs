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

public sealed record GetOptions : TranscodingOptions;

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

/// <summary>The shared all-defaults instance of an options type, used when a caller passes null.</summary>
internal static class Defaults<T> where T : new()
{
    public static readonly T Value = new();
}
