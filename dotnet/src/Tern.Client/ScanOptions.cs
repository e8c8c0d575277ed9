namespace Tern.Client;

/// <summary>
/// Options of <see cref="Collection.ScanAsync"/>. <see cref="OperationOptions.Timeout"/> bounds each
/// request the scan sends (default <see cref="DefaultTimeout"/>, as in the official SDKs), not
/// the whole scan, which runs as long as the caller enumerates.
/// </summary>
public sealed record ScanOptions : TranscodingOptions
{
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(75);

    /// <summary>The longest <see cref="ConcurrentVBucketScans"/>: the scans a ternd bucket keeps open at most, by default.</summary>
    public const int MaxConcurrentVBucketScans = 128;

    /// <summary>Return keys only: no content, CAS or expiry crosses the network.</summary>
    public bool IdsOnly { get; init; }

    /// <summary>Wait, per vbucket, until the server has every mutation these tokens name.</summary>
    public MutationState? ConsistentWith { get; init; }

    /// <summary>How many items the server sends per continue at most.</summary>
    public uint BatchItemLimit { get; init; } = 50;

    /// <summary>How many bytes the server sends per continue at most (it sends at least one item).</summary>
    public uint BatchByteLimit { get; init; } = 15_000;

    /// <summary>How long the server spends per continue at most; 0: its default.</summary>
    public TimeSpan BatchTimeLimit { get; init; }

    /// <summary>How many vbuckets are scanned at once (1 to <see cref="MaxConcurrentVBucketScans"/>); each holds a scan open on its server.</summary>
    public int ConcurrentVBucketScans { get; init; } = 1;
}
