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
    internal static readonly GetOptions Default = new();
}

public sealed record GetAndTouchOptions : TranscodingOptions
{
    internal static readonly GetAndTouchOptions Default = new();
}

public sealed record GetAndLockOptions : TranscodingOptions
{
    internal static readonly GetAndLockOptions Default = new();
}

public sealed record ExistsOptions : OperationOptions
{
    internal static readonly ExistsOptions Default = new();
}

/// <summary>Options of Upsert, Insert and Replace.</summary>
public abstract record StoreOptions : TranscodingOptions
{
    /// <summary>How long the document lives; null or zero keeps it until removed. Over 30 days is sent as an absolute time.</summary>
    public TimeSpan? Expiry { get; init; }

    /// <summary>Non-zero: store only if the document's CAS still equals this (else <see cref="Exceptions.CasMismatchException"/>).</summary>
    public ulong Cas { get; init; }
}

public sealed record UpsertOptions : StoreOptions
{
    internal static readonly UpsertOptions Default = new();
}

public sealed record InsertOptions : StoreOptions
{
    internal static readonly InsertOptions Default = new();
}

public sealed record ReplaceOptions : StoreOptions
{
    internal static readonly ReplaceOptions Default = new();
}

public sealed record RemoveOptions : OperationOptions
{
    internal static readonly RemoveOptions Default = new();

    public ulong Cas { get; init; }
}

public sealed record TouchOptions : OperationOptions
{
    internal static readonly TouchOptions Default = new();
}

public sealed record UnlockOptions : OperationOptions
{
    internal static readonly UnlockOptions Default = new();
}

/// <summary>Options of Append and Prepend.</summary>
public sealed record AdjoinOptions : OperationOptions
{
    internal static readonly AdjoinOptions Default = new();

    public ulong Cas { get; init; }
}

/// <summary>Options of Increment and Decrement.</summary>
public sealed record CounterOptions : OperationOptions
{
    internal static readonly CounterOptions Default = new();

    public ulong Delta { get; init; } = 1;

    /// <summary>The value a missing counter is created with; null makes a missing counter fail with <see cref="Exceptions.DocumentNotFoundException"/>.</summary>
    public ulong? Initial { get; init; } = 1;

    /// <summary>Expiry of a counter created by this call.</summary>
    public TimeSpan? Expiry { get; init; }
}
