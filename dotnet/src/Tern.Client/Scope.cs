using System.Collections.Concurrent;

namespace Tern.Client;

/// <summary>A scope of a bucket: a namespace of collections (couchbase://). Classic clusters have only `_default`.</summary>
public sealed class Scope
{
    private readonly Bucket _bucket;
    private readonly ConcurrentDictionary<string, Collection> _collections = new(StringComparer.Ordinal);

    internal Scope(string name, Bucket bucket)
    {
        Name = name;
        _bucket = bucket;
    }

    public string Name { get; }

    public string BucketName => _bucket.Name;

    /// <summary>
    /// A collection by name. Its id is looked up (and cached) on first use; a collection that does not
    /// exist makes that use fail with <see cref="Exceptions.CollectionNotFoundException"/>.
    /// </summary>
    public Collection Collection(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        return _collections.GetOrAdd(name, static (collectionName, scope) =>
            new Collection(scope._bucket.Keyspace(scope.Name, collectionName), scope._bucket.Options), this);
    }
}
