using System.Diagnostics;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>
/// A couchbase:// connection bootstraps in two round trips: HELLO, the error map and SCRAM's
/// first message go out together; SCRAM's final message, SELECT_BUCKET and GET_CLUSTER_CONFIG go
/// out together once the server's challenge is in. Checked from inside (socket send calls of
/// each connection) and from outside (a proxy counting the client's bursts). Polling and
/// keep-alives are pushed out of the way so that nothing else is sent.
/// </summary>
[Trait("Server", "ternd")]
public sealed class CouchbaseBootstrapTests : IAsyncLifetime
{
    private ServerProcess _server = null!;

    public async Task InitializeAsync() => _server = await ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath);

    public async Task DisposeAsync() => await _server.DisposeAsync();

    private static ClusterOptions Quiet() => CouchbaseFixture.Options() with
    {
        ConfigPollInterval = TimeSpan.FromHours(1),
        KeepAliveInterval = TimeSpan.FromHours(1),
    };

    [Fact]
    public async Task EachBucketConnectionMadeTwoSocketSendsBeforeAnyOperation()
    {
        await using var cluster = await Cluster.ConnectAsync(_server.CouchbaseConnectionString, Quiet());
        var bucket = cluster.Bucket(CouchbaseFixture.BucketName);

        await bucket.WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout);

        var topology = Assert.Single(cluster.Topologies);
        Assert.Equal(CouchbaseFixture.BucketName, topology.Name);
        Assert.NotNull(topology.Map);
        var connections = await BootstrappedConnectionsAsync(topology);
        Assert.All(connections, c => Assert.True(c.SendCalls == 2,
            $"{c.Name} to {c.Endpoint} made {c.SendCalls} send calls for {c.Requests} requests before any operation"));

        // The counter is live: the first operation adds a send.
        var before = connections.Sum(c => c.SendCalls);
        await bucket.DefaultCollection().UpsertAsync($"after-bootstrap-{Guid.NewGuid():N}", "v");
        Assert.True(topology.Pools.SelectMany(p => p.Connections).Sum(c => c.SendCalls) > before);
    }

    [Fact]
    public async Task SeenFromOutsideEachConnectionBootstrapsInTwoRoundTrips()
    {
        await using var proxy = new CountingProxy(_server.Port);
        await using (var cluster = await Cluster.ConnectAsync($"couchbase://127.0.0.1:{proxy.Port}", Quiet()))
        {
            // ConnectAsync authenticated one connection (no bucket); the bucket's seed connection bootstraps now.
            var probe = Assert.Single(proxy.Connections);
            Assert.Equal(2, probe.ClientBursts);

            await cluster.Bucket(CouchbaseFixture.BucketName).WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout);

            // The map names the node by its own port, not the proxy's: later connections may bypass the
            // proxy, so only the ones through it are counted, each once its bootstrap is over.
            var proxied = proxy.Connections;
            Assert.True(proxied.Count >= 2, $"{proxied.Count} connections through the proxy");
            Assert.All(proxied, c => Assert.True(c.ClientBursts == 2,
                $"a connection made {c.ClientBursts} client bursts ({c.ClientBytes} bytes out, {c.ServerBytes} in)"));
        }
    }

    /// <summary>
    /// The bucket's connections once each has finished its bootstrap. The bucket is ready when the
    /// first map arrives, which can be just before the pool lists the connection that carried it.
    /// </summary>
    private static async Task<IReadOnlyList<Tern.Client.IO.Connection>> BootstrappedConnectionsAsync(Tern.Client.Couchbase.BucketTopology topology)
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            var connections = topology.Pools.SelectMany(p => p.Connections).ToArray();
            if (connections.Length > 0 && topology.Pools.All(p => p.Connections.Count > 0))
                return connections;
            Assert.True(waited.Elapsed < TimeSpan.FromSeconds(10), "the bucket's pools listed no connection within 10 s of it being ready");
            await Task.Delay(10);
        }
    }
}
