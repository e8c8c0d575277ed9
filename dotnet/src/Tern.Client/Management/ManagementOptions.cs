namespace Tern.Client.Management;

/// <summary>What every management call accepts. A null options argument means all defaults.</summary>
public abstract record ManagementOptions
{
    /// <summary>Overrides <see cref="ClusterOptions.ManagementTimeout"/> for this call.</summary>
    public TimeSpan? Timeout { get; init; }

    public CancellationToken CancellationToken { get; init; }
}

public sealed record GetAllBucketsOptions : ManagementOptions;

public sealed record GetBucketOptions : ManagementOptions;

public sealed record CreateBucketOptions : ManagementOptions;

public sealed record UpdateBucketOptions : ManagementOptions;

public sealed record DropBucketOptions : ManagementOptions;

public sealed record FlushBucketOptions : ManagementOptions;

public sealed record GetAllScopesOptions : ManagementOptions;

public sealed record CreateScopeOptions : ManagementOptions;

public sealed record DropScopeOptions : ManagementOptions;

public sealed record CreateCollectionOptions : ManagementOptions;

public sealed record DropCollectionOptions : ManagementOptions;
