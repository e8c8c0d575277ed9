namespace Tern.Client.Operations;

/// <summary>
/// The bucket, scope and collection an operation addresses, as its errors and mutation tokens name
/// them. The Couchbase layer's keyspace implements it; operations never name that layer.
/// </summary>
internal interface IKeyspaceName
{
    string BucketName { get; }

    string ScopeName { get; }

    string CollectionName { get; }
}
