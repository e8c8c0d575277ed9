namespace Tern.Client.Exceptions;

/// <summary>No node of the cluster offers the service (for management: no "mgmt" in the cluster map).</summary>
public sealed class ServiceNotAvailableException(string message) : TernException(message);

/// <summary>
/// A management (HTTP) request failed for a reason without a typed exception: <see cref="HttpStatus"/>
/// is the status it answered (0 when no answer came) and <see cref="ServerMessage"/> what it said.
/// </summary>
public sealed class ManagementException(string message, int httpStatus, string serverMessage, Exception? inner = null)
    : TernException(message, null, inner)
{
    public int HttpStatus { get; } = httpStatus;

    public string ServerMessage { get; } = serverMessage;
}

/// <summary>Creating a bucket whose name is taken.</summary>
public sealed class BucketExistsException(string bucket)
    : TernException($"bucket '{bucket}' already exists")
{
    public string BucketName { get; } = bucket;
}

/// <summary>Flushing a bucket whose flush is not enabled (BucketSettings.FlushEnabled).</summary>
public sealed class BucketNotFlushableException(string bucket)
    : TernException($"bucket '{bucket}' cannot be flushed: flush is not enabled on it")
{
    public string BucketName { get; } = bucket;
}

/// <summary>Creating a scope whose name is taken in the bucket.</summary>
public sealed class ScopeExistsException(string bucket, string scope)
    : TernException($"scope '{scope}' already exists in bucket '{bucket}'")
{
    public string ScopeName { get; } = scope;
}

/// <summary>The scope does not exist in the bucket.</summary>
public sealed class ScopeNotFoundException(string bucket, string scope)
    : TernException($"scope '{scope}' not found in bucket '{bucket}'")
{
    public string ScopeName { get; } = scope;
}

/// <summary>Creating a collection whose name is taken in its scope.</summary>
public sealed class CollectionExistsException(string bucket, string scope, string collection)
    : TernException($"collection '{scope}.{collection}' already exists in bucket '{bucket}'")
{
    public string ScopeName { get; } = scope;

    public string CollectionName { get; } = collection;
}
