using System.Buffers.Binary;
using Microsoft.Extensions.Logging;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Timing;

namespace Tern.Client.Couchbase;

/// <summary>
/// One bucket of a couchbase:// cluster: its node pools (every connection bootstrapped with
/// SELECT_BUCKET of this bucket), the vbucket locator of its newest cluster map, and the
/// <see cref="IO.Dispatcher"/> that routes by them. Maps arrive from each connection's bootstrap,
/// from the server's pushes (Duplex), from polling every <see cref="ClusterOptions.ConfigPollInterval"/>
/// and from NotMyVbucket answers; a newer one is swapped in whole: new operations route by it,
/// operations in flight finish on their connections, nodes that left are drained and closed, new
/// nodes get connections. Owned by the <see cref="Cluster"/>, which disposes it.
/// </summary>
internal sealed class BucketTopology : IAsyncDisposable
{
    private readonly ClusterOptions _options;
    private readonly ConnectionSettings _settings;
    private readonly ILogger _logger;
    private readonly object _lock = new();
    private readonly CancellationTokenSource _disposed = new();
    private readonly ITimer _poller;
    private readonly TaskCompletionSource<ConnectionFeatures> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Dictionary<string, NodePool> _pools = new(StringComparer.OrdinalIgnoreCase);
    private ClusterMap? _map;
    private int _polls;
    private int _polling;

    public BucketTopology(string name, IReadOnlyList<(string Host, int Port)> seeds, ClusterOptions options,
        ConnectionSettings clusterSettings, CouchbaseCredentials credentials)
    {
        Name = name;
        _options = options;
        _logger = clusterSettings.Logger;
        var bootstrap = new CouchbaseBootstrap(credentials, name, options.ConnectTimeout)
        {
            MapReceived = OnBootstrapped,
            WithoutSnappy = !options.EnableCompression,
            Tls = clusterSettings.Tls is not null,
        };
        _settings = clusterSettings with
        {
            Initializers = [bootstrap, .. options.ConnectionInitializers],
            OnServerRequest = OnServerRequest,
        };
        Retries = new RetryStep(this, options.TimeProvider, _logger);
        Dispatcher = new Dispatcher(options.TimeProvider) { RetryStep = Retries, Description = $"bucket '{name}'" };
        Collections = new CollectionIds(this);
        foreach (var (host, port) in seeds)
            _pools[$"{host}:{port}"] = NewPool(host, port);
        using (ExecutionContext.SuppressFlow())
            _poller = options.TimeProvider.CreateTimer(static state => ((BucketTopology)state!).Poll(), this,
                options.ConfigPollInterval, options.ConfigPollInterval);
    }

    public string Name { get; }

    public Dispatcher Dispatcher { get; }

    public RetryStep Retries { get; }

    public CollectionIds Collections { get; }

    public ClusterOptions Options => _options;

    /// <summary>The newest cluster map installed, or null before the first.</summary>
    public ClusterMap? Map => Volatile.Read(ref _map);

    /// <summary>What the bucket's first connection negotiated; completes with the first map, or fails when the bucket cannot be opened.</summary>
    public Task<ConnectionFeatures> Ready => _ready.Task;

    /// <summary>The negotiated features once <see cref="Ready"/> completed, else null.</summary>
    public ConnectionFeatures? Features => _ready.Task.IsCompletedSuccessfully ? _ready.Task.Result : null;

    internal IReadOnlyCollection<NodePool> Pools
    {
        get
        {
            lock (_lock)
                return _pools.Values.ToArray();
        }
    }

    /// <summary>
    /// Opens the seed connections in the background. Wrong credentials or an unknown bucket fail
    /// <see cref="Ready"/> and every operation; other failures are retried by the pools (with
    /// backoff) while operations wait for a map until their deadline.
    /// </summary>
    public void Start()
    {
        NodePool[] seeds;
        lock (_lock)
            seeds = _pools.Values.ToArray();
        foreach (var pool in seeds)
            _ = StartSeedAsync(pool);
    }

    private async Task StartSeedAsync(NodePool pool)
    {
        try
        {
            await pool.StartAsync(_disposed.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (FatalCause(e) is { } fatal)
        {
            _logger.LogError("bucket {Bucket} cannot be opened: {Reason}", Name, fatal.Message);
            Dispatcher.Fault(fatal);
            _ready.TrySetException(fatal);
            await DisposePoolsAsync().ConfigureAwait(false);
        }
        catch (Exception e) when (!_disposed.IsCancellationRequested)
        {
            _logger.LogWarning("bucket {Bucket}: seed {Endpoint} failed ({Reason}); retrying", Name, pool.Endpoint, e.Message);
        }
        catch (Exception)
        {
        }
    }

    private static TernException? FatalCause(Exception e)
    {
        for (var cause = e; cause is not null; cause = cause.InnerException)
        {
            if (cause is BucketNotFoundException or AuthenticationFailureException or CertificateValidationException)
                return (TernException)cause;
        }
        return null;
    }

    /// <summary>Set once the bucket is open, when its connections negotiated Snappy and compression is enabled.</summary>
    public ValueCompression? Compression { get; private set; }

    private void OnBootstrapped(ClusterMap map, ConnectionFeatures features)
    {
        Offer(map, "bootstrap");
        if (!_ready.Task.IsCompleted && features.Has(HelloFeature.Snappy) && _options.EnableCompression)
            Compression = new ValueCompression(_options.CompressionMinSize, _options.CompressionMinRatio);
        _ready.TrySetResult(features);
    }

    /// <summary>Installs <paramref name="map"/> if it is newer than the current one; returns whether it was.</summary>
    public bool Offer(ClusterMap map, string source)
    {
        List<NodePool> removed;
        int added;
        long fromEpoch, fromRev;
        lock (_lock)
        {
            if (_disposed.IsCancellationRequested || !map.IsNewerThan(_map))
                return false;
            if (_map is { } current && current.VBucketCount != map.VBucketCount)
            {
                _logger.LogWarning("bucket {Bucket}: ignored a cluster map with {New} vbuckets (current has {Current})",
                    Name, map.VBucketCount, current.VBucketCount);
                return false;
            }
            (fromEpoch, fromRev) = _map is { } old ? (old.Epoch, old.Revision) : (0, 0);
            var pools = new NodePool[map.Nodes.Count];
            var next = new Dictionary<string, NodePool>(StringComparer.OrdinalIgnoreCase);
            added = 0;
            for (var i = 0; i < pools.Length; i++)
            {
                var node = map.Nodes[i];
                if (!next.TryGetValue(node.Endpoint, out var pool))
                {
                    if (!_pools.TryGetValue(node.Endpoint, out pool))
                    {
                        pool = NewPool(node.Host, node.KvPort);
                        added++;
                        _ = WarmUpAsync(pool);
                    }
                    next[node.Endpoint] = pool;
                }
                pools[i] = pool;
            }
            removed = _pools.Values.Where(p => !next.ContainsValue(p)).ToList();
            _pools = next;
            Volatile.Write(ref _map, map);
            Dispatcher.Install(pools, new VBucketLocator(map));
        }
        _logger.LogInformation(
            "bucket {Bucket}: cluster map {FromEpoch}/{FromRev} -> {Epoch}/{Rev} from {Source}: {Nodes} nodes ({Added} added, {Removed} removed)",
            Name, fromEpoch, fromRev, map.Epoch, map.Revision, source, map.Nodes.Count, added, removed.Count);
        foreach (var pool in removed)
            _ = DrainAsync(pool);
        return true;
    }

    /// <summary>Parses a map from an answer or a push and offers it; a malformed one is logged and ignored.</summary>
    public bool Offer(ReadOnlySpan<byte> json, string endpoint, string source)
    {
        ClusterMap map;
        try
        {
            map = ClusterMap.Parse(json, CouchbaseBootstrap.HostOf(endpoint), tls: _settings.Tls is not null);
        }
        catch (FormatException e)
        {
            _logger.LogWarning("bucket {Bucket}: ignored a malformed cluster map from {Endpoint} ({Source}): {Reason}", Name, endpoint, source, e.Message);
            return false;
        }
        return Offer(map, $"{source} of {endpoint}");
    }

    private NodePool NewPool(string host, int port) =>
        new(host, port, _options.MinConnectionsPerNode, _options.MaxConnectionsPerNode,
            _options.ReconnectBackoffMin, _options.ReconnectBackoffMax, _settings);

    private async Task WarmUpAsync(NodePool pool)
    {
        try
        {
            await pool.StartAsync(_disposed.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (!_disposed.IsCancellationRequested)
        {
            _logger.LogWarning("bucket {Bucket}: connecting to new node {Endpoint} failed ({Reason}); retrying", Name, pool.Endpoint, e.Message);
        }
        catch (Exception)
        {
        }
    }

    /// <summary>Lets a departed node's operations finish (up to the KV timeout), then closes its connections.</summary>
    private async Task DrainAsync(NodePool pool)
    {
        var time = _options.TimeProvider;
        var deadline = time.TimestampAfter(_options.KvTimeout);
        try
        {
            while (pool.Connections.Any(c => c.InFlight > 0) && time.Until(deadline) > TimeSpan.Zero)
                await Task.Delay(TimeSpan.FromMilliseconds(10), time, _disposed.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }
        _logger.LogInformation("bucket {Bucket}: node {Endpoint} left the cluster map; its connections are closed", Name, pool.Endpoint);
        await pool.DisposeAsync().ConfigureAwait(false);
    }

    private void OnServerRequest(Connection connection, ServerRequest request)
    {
        if (request.Opcode != (byte)ServerOpcode.ClustermapChangeNotification)
            return;
        if (request.Key.Length > 0 && System.Text.Encoding.UTF8.GetString(request.Key) != Name)
            return;
        if (request.Value.Length > 0)
        {
            Offer(request.Value, connection.Endpoint, "push");
            return;
        }
        // A brief notification carries only the version: fetch the map if it is newer.
        if (request.Extras.Length >= 16 &&
            ClusterMap.IsNewer(BinaryPrimitives.ReadInt64BigEndian(request.Extras), BinaryPrimitives.ReadInt64BigEndian(request.Extras.AsSpan(8)), Map))
            _ = PollAsync(connection);
    }

    private void Poll()
    {
        if (_disposed.IsCancellationRequested || Interlocked.Exchange(ref _polling, 1) == 1)
            return;
        var pools = Pools.ToArray();
        var live = pools.Length == 0 ? null : pools[(int)((uint)Interlocked.Increment(ref _polls) % (uint)pools.Length)].TryGetConnection();
        if (live is null)
        {
            Volatile.Write(ref _polling, 0);
            return;
        }
        _ = PollThenReleaseAsync(live);

        async Task PollThenReleaseAsync(Connection connection)
        {
            try
            {
                await PollAsync(connection).ConfigureAwait(false);
            }
            finally
            {
                Volatile.Write(ref _polling, 0);
            }
        }
    }

    /// <summary>GET_CLUSTER_CONFIG with the version we have: the server answers an empty body when ours is current.</summary>
    private async Task PollAsync(Connection connection)
    {
        try
        {
            var extras = new byte[16];
            if (Map is { } current)
            {
                BinaryPrimitives.WriteInt64BigEndian(extras, current.Epoch);
                BinaryPrimitives.WriteInt64BigEndian(extras.AsSpan(8), current.Revision);
            }
            var answer = await connection.SendAsync(new RawRequest(Opcode.GetClusterConfig, Extras: extras), _options.KvTimeout,
                _disposed.Token).ConfigureAwait(false);
            if (answer.Status == ResponseStatus.Success && answer.Value.Length > 0)
                Offer(answer.Value, connection.Endpoint, "poll");
        }
        catch (Exception e) when (!_disposed.IsCancellationRequested)
        {
            _logger.LogDebug("bucket {Bucket}: polling {Endpoint} for a cluster map failed: {Reason}", Name, connection.Endpoint, e.Message);
        }
        catch (Exception)
        {
        }
    }

    private async Task DisposePoolsAsync()
    {
        NodePool[] pools;
        lock (_lock)
        {
            pools = _pools.Values.ToArray();
            _pools = new Dictionary<string, NodePool>(StringComparer.OrdinalIgnoreCase);
        }
        foreach (var pool in pools)
            await pool.DisposeAsync().ConfigureAwait(false);
    }

    public async ValueTask DisposeAsync()
    {
        lock (_lock)
            _disposed.Cancel();
        await _poller.DisposeAsync().ConfigureAwait(false);
        Dispatcher.Fault(new ObjectDisposedException(nameof(Cluster), $"the cluster was disposed: bucket '{Name}' is closed"));
        _ready.TrySetException(new ObjectDisposedException(nameof(Cluster)));
        _ = _ready.Task.Exception;
        await DisposePoolsAsync().ConfigureAwait(false);
    }
}
