using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Timing;

namespace Tern.Client.Couchbase;

/// <summary>
/// Where a collection's operations go and what their keys are prefixed with. Over memcached://
/// and tern:// keys carry no prefix and nothing needs resolving. Over couchbase:// the bucket must
/// be open (its first cluster map in) and a named collection's id looked up before the first
/// operation: until then <see cref="IsResolved"/> is false and the collection takes its slow path.
/// </summary>
internal sealed class Keyspace : IKeyspaceName
{
    private readonly BucketTopology? _topology;
    private volatile bool _resolved;
    private uint _id;

    /// <summary>A keyspace of a classic (ketama) cluster: no prefix, always resolved.</summary>
    public Keyspace(Dispatcher dispatcher, string bucket)
    {
        Dispatcher = dispatcher;
        BucketName = bucket;
        ScopeName = CollectionNames.DefaultScope;
        CollectionName = CollectionNames.DefaultCollection;
        _resolved = true;
    }

    public Keyspace(BucketTopology topology, string scope, string collection)
    {
        _topology = topology;
        Dispatcher = topology.Dispatcher;
        BucketName = topology.Name;
        ScopeName = scope;
        CollectionName = collection;
    }

    public Dispatcher Dispatcher { get; }

    public string BucketName { get; }

    public string ScopeName { get; }

    public string CollectionName { get; }

    public bool IsDefault => ScopeName == CollectionNames.DefaultScope && CollectionName == CollectionNames.DefaultCollection;

    /// <summary>True when keys can be encoded now with <see cref="Prefix"/>.</summary>
    public bool IsResolved => _resolved;

    /// <summary>How values are compressed on this keyspace's connections; null: not at all.</summary>
    public ValueCompression? Compression => _topology?.Compression;

    /// <summary>The bucket's topology: null on classic clusters.</summary>
    public BucketTopology? Topology => _topology;

    /// <summary>The key prefix: null without collections (classic clusters), else the collection id (0 until resolved).</summary>
    public uint? Prefix => _topology is null ? null : Volatile.Read(ref _id);

    /// <summary>Opens the bucket (up to the operation's deadline) and looks the collection's id up.</summary>
    public async Task<uint> ResolveAsync(OperationBase operation)
    {
        var topology = _topology!;
        var remaining = topology.Options.TimeProvider.Until(operation.DeadlineTimestamp);
        if (remaining <= TimeSpan.Zero)
            throw Timeouts.NoRoute(operation, $"bucket '{BucketName}'", noMap: topology.Map is null);
        ConnectionFeatures features;
        try
        {
            features = await topology.Ready.WaitAsync(remaining, topology.Options.TimeProvider, operation.CancellationToken).ConfigureAwait(false);
        }
        catch (System.TimeoutException)
        {
            throw Timeouts.NoRoute(operation, $"bucket '{BucketName}'", noMap: true);
        }
        if (!features.Collections)
            throw new FeatureNotAvailableException(
                $"bucket '{BucketName}': the server did not negotiate collections; couchbase:// needs a server with collections " +
                "(ternd, or Couchbase Server 7 and later)", operation.Key);
        remaining = topology.Options.TimeProvider.Until(operation.DeadlineTimestamp);
        if (remaining <= TimeSpan.Zero)
            throw Timeouts.NoRoute(operation, $"bucket '{BucketName}'", noMap: false);
        uint id;
        try
        {
            id = await topology.Collections.ResolveAsync(ScopeName, CollectionName, remaining, operation.CancellationToken).ConfigureAwait(false);
        }
        catch (System.TimeoutException)
        {
            throw Timeouts.NotSent(operation,
                $"the id of collection '{ScopeName}.{CollectionName}' in bucket '{BucketName}' did not arrive in time");
        }
        Volatile.Write(ref _id, id);
        _resolved = true;
        return id;
    }

    /// <summary>After UnknownCollection: forgets the cached id and looks it up again.</summary>
    public Task<uint> RefreshAsync(OperationBase operation)
    {
        _topology!.Collections.Forget(ScopeName, CollectionName);
        return ResolveAsync(operation);
    }
}

/// <summary>The names Couchbase gives the default scope and collection.</summary>
internal static class CollectionNames
{
    public const string DefaultScope = "_default";
    public const string DefaultCollection = "_default";
}
