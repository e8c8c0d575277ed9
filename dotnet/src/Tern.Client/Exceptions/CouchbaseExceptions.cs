namespace Tern.Client.Exceptions;

/// <summary>SELECT_BUCKET refused the bucket: it does not exist, or the user may not use it.</summary>
public sealed class BucketNotFoundException(string bucket, string detail)
    : TernException($"bucket '{bucket}' not found, or the user may not access it: {detail}")
{
    public string BucketName { get; } = bucket;
}

/// <summary>The collection (or its scope) does not exist in the bucket's collections manifest.</summary>
public sealed class CollectionNotFoundException(string bucket, string scope, string collection, string? key = null)
    : TernException($"collection '{scope}.{collection}' not found in bucket '{bucket}'" +
                    (key is null ? "" : $"; key '{Describe(key)}' was not sent"), key)
{
    public string ScopeName { get; } = scope;

    public string CollectionName { get; } = collection;
}

/// <summary>The server cannot meet the requested durability level (e.g. too few replicas); nothing was changed.</summary>
public sealed class DurabilityImpossibleException(string key, DurabilityLevel level)
    : TernException($"durability level {level} is impossible on this bucket now; key '{Describe(key)}' was not changed", key);

/// <summary>The durable write's outcome is unknown: it may or may not have been committed.</summary>
public sealed class DurabilityAmbiguousException(string key, DurabilityLevel level)
    : TernException($"durable write ({level}) of key '{Describe(key)}' is ambiguous: it may or may not have been committed", key);
