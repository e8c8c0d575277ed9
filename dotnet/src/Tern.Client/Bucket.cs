using System.Collections.Concurrent;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Management;

namespace Tern.Client;

/// <summary>
/// A named bucket. Over couchbase:// it has its own connections (each selects the bucket) and its
/// own cluster map; opening it starts in the background when the handle is created, and the first
/// operations wait for it (<see cref="WaitUntilReadyAsync"/> waits explicitly and reports
/// <see cref="BucketNotFoundException"/> or <see cref="AuthenticationFailureException"/>). Plain
/// memcached has no buckets: there the name only labels the handle.
/// </summary>
public sealed class Bucket
{
    private readonly ClusterOptions _options;
    private readonly BucketTopology? _topology;
    private readonly Dispatcher? _classic;
    private readonly ConcurrentDictionary<string, Scope> _scopes = new(StringComparer.Ordinal);

    internal Bucket(string name, Dispatcher classic, ClusterOptions options, ManagementClient management)
    {
        Name = name;
        _classic = classic;
        _options = options;
        Collections = new CollectionManager(management, name, null);
    }

    internal Bucket(BucketTopology topology, ClusterOptions options, ManagementClient management)
    {
        Name = topology.Name;
        _topology = topology;
        _options = options;
        Collections = new CollectionManager(management, topology.Name, topology);
    }

    public string Name { get; }

    /// <summary>Creates, lists and drops the bucket's scopes and collections over the management port (couchbase:// only).</summary>
    public ICollectionManager Collections { get; }

    /// <summary>The default collection (`_default._default`, id 0).</summary>
    public Collection DefaultCollection() => DefaultScope().Collection(CollectionNames.DefaultCollection);

    public Scope DefaultScope() => Scope(CollectionNames.DefaultScope);

    /// <summary>A scope by name; whether it exists is checked when one of its collections is first used.</summary>
    public Scope Scope(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        return _scopes.GetOrAdd(name, static (scopeName, bucket) => new Scope(scopeName, bucket), this);
    }

    /// <summary>Waits until the bucket is open (couchbase://: its first cluster map arrived); at once on classic clusters.</summary>
    public async Task WaitUntilReadyAsync(TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        if (_topology is null)
            return;
        try
        {
            await _topology.Ready.WaitAsync(timeout, _options.TimeProvider, cancellationToken).ConfigureAwait(false);
        }
        catch (System.TimeoutException)
        {
            throw new UnambiguousTimeoutException(
                $"bucket '{Name}' did not open within {timeout.TotalMilliseconds:0} ms (no cluster map arrived)", null);
        }
    }

    internal Keyspace Keyspace(string scope, string collection)
    {
        if (_topology is not null)
            return new Keyspace(_topology, scope, collection);
        if (scope != CollectionNames.DefaultScope || collection != CollectionNames.DefaultCollection)
            throw new FeatureNotAvailableException(
                $"collection '{scope}.{collection}': memcached:// and tern:// have only the default collection; use couchbase://");
        return new Keyspace(_classic!, Name);
    }

    internal ClusterOptions Options => _options;
}
