using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Integration;

/// <summary>Bootstrap steps (the hook the Couchbase HELLO/SASL sequence will use) run on every new connection.</summary>
[Trait("Server", "memcached")]
public sealed class BootstrapHookTests(MemcachedFixture fixture) : IClassFixture<MemcachedFixture>
{
    private sealed class VersionProbe : IConnectionInitializer
    {
        public List<string> Versions { get; } = new();

        public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
        {
            var response = await connection.SendAsync(new RawRequest(Opcode.Version), TimeSpan.FromSeconds(5), cancellationToken);
            Assert.Equal(ResponseStatus.Success, response.Status);
            lock (Versions)
                Versions.Add(Encoding.ASCII.GetString(response.Value));
        }
    }

    private sealed class Refuser : IConnectionInitializer
    {
        public ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken) =>
            throw new InvalidOperationException($"authentication refused by {connection.Endpoint}");
    }

    [Fact]
    public async Task EachNewConnectionRunsTheStepsBeforeCarryingOperations()
    {
        var probe = new VersionProbe();
        await using var cluster = await Cluster.ConnectAsync(fixture.Server.ConnectionString,
            new ClusterOptions { ConnectionInitializers = [probe], MinConnectionsPerNode = 2, MaxConnectionsPerNode = 2 });

        await cluster.Bucket("b").DefaultCollection().UpsertAsync("bootstrapped", "v");

        Assert.Equal(2, probe.Versions.Count);
        Assert.All(probe.Versions, version => Assert.Matches(@"^\d+\.\d+", version));
    }

    /// <summary>The exact timing is ConnectionBehaviourTests' (on a fake clock); here the real clock only bounds it.</summary>
    [Fact]
    public async Task OperationsTimeOutWhileAReconnectHangsInBootstrap()
    {
        var timeout = TimeSpan.FromMilliseconds(300);
        await using var cluster = await Cluster.ConnectAsync(fixture.Server.ConnectionString, new ClusterOptions
        {
            ConnectionInitializers = [new HangingBootstrap(passing: 1)],
            MaxConnectionsPerNode = 1,
            KvTimeout = timeout,
        });
        var collection = cluster.Bucket("b").DefaultCollection();
        await collection.UpsertAsync("before-hang", "v");

        cluster.Nodes[0].Connections[0].Fail(new IOException("dropped by the test"));
        var watch = System.Diagnostics.Stopwatch.StartNew();
        var error = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => collection.GetAsync("during-hang").AsTask());

        Assert.True(watch.Elapsed < timeout + TimeSpan.FromSeconds(3), $"timing out took {watch.Elapsed}");
        Assert.EndsWith($"without being sent: no connection to 127.0.0.1:{fixture.Server.Port} was ready in time (connecting or bootstrapping)",
            error.Message);
    }

    [Fact]
    public async Task AFailingStepFailsTheConnection()
    {
        var error = await Assert.ThrowsAsync<NodeUnavailableException>(() => Cluster.ConnectAsync(
            fixture.Server.ConnectionString, new ClusterOptions { ConnectionInitializers = [new Refuser()] }));
        Assert.Contains("authentication refused", error.Message);
    }
}
