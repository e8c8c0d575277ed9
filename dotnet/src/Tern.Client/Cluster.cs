using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Locators;

namespace Tern.Client;

/// <summary>
/// The entry point: <c>await Cluster.ConnectAsync("memcached://h1:11211,h2:11211")</c>, then
/// <c>cluster.Bucket("name").DefaultCollection()</c>. Owns every connection; dispose it to close them.
/// </summary>
public sealed class Cluster : IAsyncDisposable
{
    private readonly ConcurrentDictionary<string, Bucket> _buckets = new();
    private readonly NodePool[] _nodes;
    private readonly OrphanReporter _orphans;
    private readonly Dispatcher _dispatcher;

    private Cluster(ClusterOptions options, NodePool[] nodes, IKeyLocator locator, OrphanReporter orphans)
    {
        Options = options;
        _nodes = nodes;
        _orphans = orphans;
        _dispatcher = new Dispatcher(nodes, locator, options.TimeProvider);
    }

    public ClusterOptions Options { get; }

    /// <summary>
    /// Connects to every node of the connection string. Succeeds when at least one node answers;
    /// the others keep being retried in the background. Cancelling throws <see cref="OperationCanceledException"/>.
    /// </summary>
    public static async Task<Cluster> ConnectAsync(string connectionString, ClusterOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        var parsed = ConnectionString.Parse(connectionString);
        options ??= new ClusterOptions();
        ArgumentNullException.ThrowIfNull(options.TimeProvider, nameof(ClusterOptions.TimeProvider));
        var logger = options.LoggerFactory.CreateLogger("Tern.Client");
        var orphans = new OrphanReporter(logger, options.OrphanReportInterval, options.OrphanSampleSize, options.TimeProvider);
        var settings = new ConnectionSettings(options.MaxInFlightPerConnection, options.ConnectTimeout,
            options.TimeoutSweepInterval, options.ConnectionInitializers, orphans, logger, options.TimeProvider);
        var nodes = parsed.Nodes
            .Select(n => new NodePool(n.Host, n.Port, options.MinConnectionsPerNode, options.MaxConnectionsPerNode,
                options.ReconnectBackoffMin, options.ReconnectBackoffMax, settings))
            .ToArray();
        var cluster = new Cluster(options, nodes, new KetamaLocator(parsed.Nodes), orphans);
        var failures = await Task.WhenAll(nodes.Select(async node =>
        {
            try
            {
                await node.StartAsync(cancellationToken).ConfigureAwait(false);
                return null;
            }
            catch (Exception e)
            {
                return e;
            }
        })).ConfigureAwait(false);
        if (failures.All(f => f is not null) || cancellationToken.IsCancellationRequested)
        {
            await cluster.DisposeAsync().ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
            throw new NodeUnavailableException(
                $"could not connect to any node of '{connectionString}': {string.Join("; ", failures.Select(f => f!.Message))}",
                null, failures[0]);
        }
        logger.LogInformation("connected to {Nodes}", string.Join(", ", nodes.Select(n => n.Endpoint)));
        return cluster;
    }

    public Bucket Bucket(string name) =>
        _buckets.GetOrAdd(name, static (bucketName, cluster) => new Bucket(bucketName, cluster._dispatcher, cluster.Options), this);

    /// <summary>Orphaned responses (arrived after their operation timed out) since the cluster was created.</summary>
    public long OrphanCount => _orphans.Total;

    internal OrphanReporter Orphans => _orphans;

    internal IReadOnlyList<NodePool> Nodes => _nodes;

    public async ValueTask DisposeAsync()
    {
        foreach (var node in _nodes)
            await node.DisposeAsync().ConfigureAwait(false);
        _orphans.Dispose();
    }
}
