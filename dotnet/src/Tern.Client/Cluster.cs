using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Locators;
using Tern.Client.Management;
using Tern.Client.Security;

namespace Tern.Client;

/// <summary>
/// The entry point: <c>await Cluster.ConnectAsync("couchbase://host", new ClusterOptions { UserName = .., Password = .. })</c>
/// (ternd or Couchbase Server; "couchbases://host" over TLS, see <see cref="ClusterOptions.TlsSettings"/>) or <c>Cluster.ConnectAsync("memcached://h1:11211,h2:11211")</c>, then
/// <c>cluster.Bucket("name").DefaultCollection()</c>. Owns every connection; dispose it to close them.
/// </summary>
public sealed class Cluster : IAsyncDisposable
{
    private readonly ConcurrentDictionary<string, Bucket> _buckets = new(StringComparer.Ordinal);
    private readonly ConnectionString _connectionString;
    private readonly ConnectionSettings _settings;
    private readonly OrphanReporter _orphans;
    private readonly NodePool[] _nodes;
    private readonly Dispatcher? _classic;
    private readonly CouchbaseCredentials? _credentials;
    private readonly ConcurrentBag<BucketTopology> _topologies = new();
    private readonly ManagementClient _management;
    private volatile bool _disposed;
    private Transactions.Transactions? _transactions;

    private Cluster(ClusterOptions options, ConnectionString connectionString, ConnectionSettings settings, OrphanReporter orphans,
        NodePool[] nodes, IKeyLocator? locator, CouchbaseCredentials? credentials)
    {
        Options = options;
        _connectionString = connectionString;
        _settings = settings;
        _orphans = orphans;
        _nodes = nodes;
        _credentials = credentials;
        if (locator is not null)
            _classic = new Dispatcher(nodes, locator, options.TimeProvider);
        _management = new ManagementClient(options, FindManagementAsync, credentials, settings.Tls);
        Buckets = new BucketManager(_management);
    }

    public ClusterOptions Options { get; }

    /// <summary>
    /// Distributed ACID transactions, interoperable with the official SDKs' (couchbase://):
    /// <c>await cluster.Transactions.RunAsync(async ctx => { ... })</c>. Created on first use, with
    /// <see cref="ClusterOptions.Transactions"/>; its background cleanup stops when the cluster is disposed.
    /// </summary>
    public Transactions.Transactions Transactions
    {
        get
        {
            if (_transactions is { } transactions)
                return transactions;
            lock (_buckets)
            {
                ObjectDisposedException.ThrowIf(_disposed, this);
                if (_classic is not null)
                    throw new FeatureNotAvailableException("transactions need couchbase:// (sub-document, XATTRs, durability)");
                var kv = new Transactions.CollectionTransactionKv(keyspace => Bucket(keyspace.Bucket).Scope(keyspace.Scope).Collection(keyspace.Collection));
                return _transactions ??= new Transactions.Transactions(Options.Transactions, Options, kv, kv);
            }
        }
    }

    /// <summary>Creates, changes, lists, flushes and drops buckets over the management port (couchbase:// only).</summary>
    public IBucketManager Buckets { get; }

    /// <summary>
    /// memcached:// and tern://: connects to every node; succeeds when at least one answers, the
    /// others keep being retried in the background. couchbase://: authenticates once against a seed
    /// node (<see cref="AuthenticationFailureException"/> for wrong credentials); buckets open when
    /// first named. Cancelling throws <see cref="OperationCanceledException"/>.
    /// </summary>
    public static async Task<Cluster> ConnectAsync(string connectionString, ClusterOptions? options = null,
        CancellationToken cancellationToken = default)
    {
        var parsed = ConnectionString.Parse(connectionString);
        options ??= new ClusterOptions();
        ArgumentNullException.ThrowIfNull(options.TimeProvider, nameof(ClusterOptions.TimeProvider));
        var logger = options.LoggerFactory.CreateLogger("Tern.Client");
        var orphans = new OrphanReporter(logger, options.OrphanReportInterval, options.OrphanSampleSize, options.TimeProvider);
        var tls = options.EnableTls ?? parsed.IsTls;
        if (tls && !parsed.IsCouchbase)
        {
            orphans.Dispose();
            throw new InvalidArgumentException($"TLS needs couchbases:// (or couchbase:// with EnableTls); {parsed.Scheme}:// is plain TCP only");
        }
        var settings = new ConnectionSettings(options.MaxInFlightPerConnection, options.ConnectTimeout,
            options.TimeoutSweepInterval, options.ConnectionInitializers, orphans, logger, options.TimeProvider)
        {
            KeepAliveInterval = options.KeepAliveInterval,
            KeepAliveTimeout = options.KvTimeout,
            Tls = tls ? new TlsConnector(options.TlsSettings, (options.Authenticator as CertificateAuthenticator)?.CertificateFactory) : null,
        };
        if (parsed.IsCouchbase)
            return await ConnectCouchbaseAsync(parsed, options, settings, orphans, cancellationToken).ConfigureAwait(false);

        var nodes = parsed.Nodes
            .Select(n => new NodePool(n.Host, n.Port, options.MinConnectionsPerNode, options.MaxConnectionsPerNode,
                options.ReconnectBackoffMin, options.ReconnectBackoffMax, settings))
            .ToArray();
        var cluster = new Cluster(options, parsed, settings, orphans, nodes, new KetamaLocator(parsed.Nodes), null);
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

    /// <summary>Checks the credentials on the first seed that answers (one bootstrap, no bucket), then closes that connection.</summary>
    private static async Task<Cluster> ConnectCouchbaseAsync(ConnectionString parsed, ClusterOptions options, ConnectionSettings settings,
        OrphanReporter orphans, CancellationToken cancellationToken)
    {
        CouchbaseCredentials credentials;
        try
        {
            credentials = Credentials(options, settings.Tls is not null);
        }
        catch
        {
            orphans.Dispose();
            throw;
        }
        var probe = ProbeSettings(settings, credentials, options);
        var failures = new List<Exception>();
        foreach (var (host, port) in parsed.Nodes)
        {
            try
            {
                await using var connection = await Connection.OpenAsync(host, port, probe, cancellationToken).ConfigureAwait(false);
                settings.Logger.LogInformation("authenticated as {User} at {Endpoint}", credentials.UserName, connection.Endpoint);
                return new Cluster(options, parsed, settings, orphans, [], null, credentials);
            }
            catch (Exception e) when (e is AuthenticationFailureException or CertificateValidationException)
            {
                orphans.Dispose();
                throw;
            }
            catch (Exception e) when (!cancellationToken.IsCancellationRequested)
            {
                failures.Add(e);
            }
            catch
            {
                orphans.Dispose();
                throw;
            }
        }
        orphans.Dispose();
        throw new NodeUnavailableException(
            $"could not bootstrap from any seed of {parsed.Scheme}://{string.Join(",", parsed.Nodes.Select(n => $"{n.Host}:{n.Port}"))}: " +
            string.Join("; ", failures.Select(f => f.Message)), null, failures[0]);
    }

    /// <summary>
    /// Who logs in and how: a client certificate (TLS only), or a user name and password, sent with
    /// PLAIN inside TLS unless <see cref="ClusterOptions.EnablePlainAuthentication"/> is false, else with SCRAM.
    /// </summary>
    internal static CouchbaseCredentials Credentials(ClusterOptions options, bool tls)
    {
        switch (options.Authenticator)
        {
            case CertificateAuthenticator when !tls:
                throw new InvalidArgumentException("a CertificateAuthenticator needs TLS: connect with couchbases://");
            case CertificateAuthenticator:
                return CouchbaseCredentials.Certificate();
        }
        var (user, password) = options.Authenticator is PasswordAuthenticator given ? (given.UserName, given.Password) : (options.UserName, options.Password);
        if (string.IsNullOrEmpty(user) || password is null)
            throw new InvalidArgumentException(
                "couchbase:// needs credentials: set ClusterOptions.UserName and ClusterOptions.Password (or an Authenticator)");
        return new CouchbaseCredentials(user, password, allowPlain: options.EnablePlainAuthentication == true,
            preferPlain: tls && options.EnablePlainAuthentication != false);
    }

    /// <summary>A connection that authenticates and selects no bucket.</summary>
    private static ConnectionSettings ProbeSettings(ConnectionSettings settings, CouchbaseCredentials credentials, ClusterOptions options) =>
        settings with
        {
            Initializers =
            [
                new CouchbaseBootstrap(credentials, null, options.ConnectTimeout)
                {
                    WithoutSnappy = !options.EnableCompression,
                    Tls = settings.Tls is not null,
                },
            ],
        };

    private Task<ManagementEndpointFinder.Found> FindManagementAsync(CancellationToken cancellationToken)
    {
        if (_credentials is null)
            return Task.FromResult(new ManagementEndpointFinder.Found([],
                $"{_connectionString.Scheme}:// has no management service; use couchbase://"));
        var finder = new ManagementEndpointFinder(() => _topologies, _connectionString.Nodes,
            ProbeSettings(_settings, _credentials, Options), Options.KvTimeout);
        return finder.FindAsync(cancellationToken);
    }

    /// <summary>A bucket handle (the same one for the same name). Over couchbase:// it starts opening now, in the background.</summary>
    public Bucket Bucket(string name)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        if (_buckets.TryGetValue(name, out var bucket))
            return bucket;
        // Under a lock, not GetOrAdd: its factory may run twice, and each run opens connections.
        lock (_buckets)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return _buckets.TryGetValue(name, out bucket) ? bucket : _buckets[name] = OpenBucket(name);
        }
    }

    /// <summary>A bucket handle, once the bucket is open: throws <see cref="BucketNotFoundException"/> when it does not exist.</summary>
    public async ValueTask<Bucket> BucketAsync(string name, CancellationToken cancellationToken = default)
    {
        var bucket = Bucket(name);
        await bucket.WaitUntilReadyAsync(Options.KvTimeout, cancellationToken).ConfigureAwait(false);
        return bucket;
    }

    private Bucket OpenBucket(string name)
    {
        if (_credentials is null)
            return new Bucket(name, _classic!, Options, _management);
        var topology = new BucketTopology(name, _connectionString.Nodes, Options, _settings, _credentials);
        _topologies.Add(topology);
        topology.Start();
        return new Bucket(topology, Options, _management);
    }

    /// <summary>Orphaned responses (arrived after their operation timed out) since the cluster was created.</summary>
    public long OrphanCount => _orphans.Total;

    internal OrphanReporter Orphans => _orphans;

    /// <summary>The node pools: a classic cluster's, or every open bucket's.</summary>
    internal IReadOnlyList<NodePool> Nodes => _classic is not null ? _nodes : _topologies.SelectMany(t => t.Pools).ToArray();

    internal IEnumerable<BucketTopology> Topologies => _topologies;

    public async ValueTask DisposeAsync()
    {
        // First, while the connections are up: the transactions' cleanup finishes and leaves the client records.
        if (_transactions is not null)
            await _transactions.DisposeAsync().ConfigureAwait(false);
        lock (_buckets)
            _disposed = true;
        foreach (var topology in _topologies)
            await topology.DisposeAsync().ConfigureAwait(false);
        foreach (var node in _nodes)
            await node.DisposeAsync().ConfigureAwait(false);
        _management.Dispose();
        _orphans.Dispose();
    }
}
