using System.Collections.Concurrent;
using Tern.Client.IO;

namespace Tern.Client;

/// <summary>
/// A named bucket. Plain memcached has no buckets, so there the name only labels the handle;
/// selecting the bucket on each connection (SELECT_BUCKET) belongs to the Couchbase bootstrap.
/// </summary>
public sealed class Bucket
{
    private readonly Dispatcher _dispatcher;
    private readonly ClusterOptions _options;
    private readonly ConcurrentDictionary<string, Collection> _collections = new();

    internal Bucket(string name, Dispatcher dispatcher, ClusterOptions options)
    {
        Name = name;
        _dispatcher = dispatcher;
        _options = options;
    }

    public string Name { get; }

    /// <summary>The default collection (id 0; keys carry no collection prefix until Collections is negotiated).</summary>
    public Collection DefaultCollection() =>
        _collections.GetOrAdd("_default", static (name, bucket) => new Collection(name, bucket._dispatcher, bucket._options, null), this);
}
