namespace Tern.Client.Management;

/// <summary>
/// The cluster's buckets, over the management port (<see cref="Cluster.Buckets"/>), with the
/// official .NET SDK's names. Failures: <see cref="Exceptions.BucketExistsException"/>,
/// <see cref="Exceptions.BucketNotFoundException"/>, <see cref="Exceptions.BucketNotFlushableException"/>,
/// <see cref="Exceptions.ServiceNotAvailableException"/> when no node serves management, and
/// <see cref="Exceptions.ManagementException"/> (naming the HTTP status and the server's message) otherwise.
/// </summary>
public interface IBucketManager
{
    Task CreateBucketAsync(BucketSettings settings, CreateBucketOptions? options = null);

    /// <summary>Changes what may change after creation: quota, flush, replicas, eviction, max TTL, compression, minimum durability.</summary>
    Task UpdateBucketAsync(BucketSettings settings, UpdateBucketOptions? options = null);

    Task DropBucketAsync(string bucketName, DropBucketOptions? options = null);

    Task<BucketSettings> GetBucketAsync(string bucketName, GetBucketOptions? options = null);

    /// <summary>Every bucket the user may see, by name.</summary>
    Task<Dictionary<string, BucketSettings>> GetAllBucketsAsync(GetAllBucketsOptions? options = null);

    /// <summary>Removes every document of the bucket; the bucket must have flush enabled.</summary>
    Task FlushBucketAsync(string bucketName, FlushBucketOptions? options = null);
}
