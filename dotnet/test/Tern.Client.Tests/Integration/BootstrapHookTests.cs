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

    /// <summary>Lets the first connection through, then hangs every later bootstrap.</summary>
    private sealed class HangsAfterFirst : IConnectionInitializer
    {
        private int _calls;

        public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
        {
            if (Interlocked.Increment(ref _calls) > 1)
                await Task.Delay(Timeout.Infinite, cancellationToken);
        }
    }

    [Fact]
    public async Task OperationsTimeOutWhileAReconnectHangsInBootstrap()
    {
        await using var cluster = await Cluster.ConnectAsync(fixture.Server.ConnectionString, new ClusterOptions
        {
            ConnectionInitializers = [new HangsAfterFirst()],
            MaxConnectionsPerNode = 1,
            KvTimeout = TimeSpan.FromMilliseconds(300),
        });
        var collection = cluster.Bucket("b").DefaultCollection();
        await collection.UpsertAsync("before-hang", "v");

        cluster.Nodes[0].Connections[0].Fail(new IOException("dropped by the test"));
        var watch = System.Diagnostics.Stopwatch.StartNew();
        var error = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => collection.GetAsync("during-hang").AsTask());

        Assert.InRange(watch.Elapsed, TimeSpan.FromMilliseconds(250), TimeSpan.FromSeconds(2));
        Assert.Contains("without being sent", error.Message);
    }

    [Fact]
    public async Task AFailingStepFailsTheConnection()
    {
        var error = await Assert.ThrowsAsync<NodeUnavailableException>(() => Cluster.ConnectAsync(
            fixture.Server.ConnectionString, new ClusterOptions { ConnectionInitializers = [new Refuser()] }));
        Assert.Contains("authentication refused", error.Message);
    }
}
