namespace Tern.Client.Management;

/// <summary>A bucket's settings, as the official SDK's bucket manager names them (create, update, get).</summary>
public sealed class BucketSettings
{
    public string Name { get; set; } = "";

    public BucketType BucketType { get; set; } = BucketType.Couchbase;

    /// <summary>The bucket's memory quota, in MiB.</summary>
    public long RamQuotaMB { get; set; } = 100;

    /// <summary>Whether <see cref="IBucketManager.FlushBucketAsync"/> may empty it.</summary>
    public bool FlushEnabled { get; set; }

    /// <summary>Copies of each document on other nodes; ternd keeps none and refuses more than 0.</summary>
    public int NumReplicas { get; set; }

    public bool ReplicaIndexes { get; set; }

    /// <summary>Set at creation only.</summary>
    public ConflictResolutionType? ConflictResolutionType { get; set; }

    /// <summary>Couchbase buckets: ValueOnly or FullEviction; ephemeral ones: NoEviction or NotRecentlyUsed.</summary>
    public EvictionPolicyType? EvictionPolicy { get; set; }

    /// <summary>The longest expiry of a new document, in seconds; 0: no limit.</summary>
    public int MaxTtl { get; set; }

    public CompressionMode? CompressionMode { get; set; }

    /// <summary>The durability every write gets at least.</summary>
    public DurabilityLevel DurabilityMinimumLevel { get; set; } = DurabilityLevel.None;

    public StorageBackend? StorageBackend { get; set; }

    public uint? NumVBuckets { get; set; }
}

public enum BucketType
{
    /// <summary>Persistent ("membase" in the REST API).</summary>
    Couchbase,
    Memcached,
    /// <summary>In memory only.</summary>
    Ephemeral,
}

public enum EvictionPolicyType
{
    ValueOnly,
    FullEviction,
    NoEviction,
    NotRecentlyUsed,
}

public enum CompressionMode
{
    Off,
    Passive,
    Active,
}

public enum ConflictResolutionType
{
    SequenceNumber,
    Timestamp,
    Custom,
}

public enum StorageBackend
{
    Couchstore,
    Magma,
}
