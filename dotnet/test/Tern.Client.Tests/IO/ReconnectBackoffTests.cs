using Tern.Client.IO;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>Reconnecting must back off even when the TCP connect itself succeeds.</summary>
public class ReconnectBackoffTests
{
    [Fact]
    public async Task AServerThatClosesEveryConnectionAtOnceIsNotReconnectedToInALoop()
    {
        await using var server = new ClosingServer();

        await using (await Cluster.ConnectAsync(server.ConnectionString, new ClusterOptions
        {
            MaxConnectionsPerNode = 1,
            ReconnectBackoffMin = TimeSpan.FromMilliseconds(50),
            ReconnectBackoffMax = TimeSpan.FromSeconds(1),
        }))
        {
            // Backing off from 50 ms and doubling, a second allows about five attempts; without
            // backoff the client reconnects as fast as the loopback lets it (hundreds a second).
            await Task.Delay(TimeSpan.FromSeconds(1));
        }

        Assert.InRange(server.Accepted, 1, 15);
    }

    /// <summary>Lets the first connection through and refuses every later one after a while, counting attempts.</summary>
    private sealed class RefusesAfterFirst : IConnectionInitializer
    {
        public int Attempts;

        public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
        {
            if (Interlocked.Increment(ref Attempts) == 1)
                return;
            // Slow enough that every operation below queues behind this attempt.
            await Task.Delay(200, cancellationToken);
            throw new IOException("refused by the test");
        }
    }

    [Fact]
    public async Task CallersWaitingToConnectDoNotEachRetryAfterAFailure()
    {
        var refuser = new RefusesAfterFirst();
        await using var server = new FakeServer();
        var backoff = TimeSpan.FromSeconds(1);
        await using var cluster = await Cluster.ConnectAsync(server.ConnectionString, new ClusterOptions
        {
            ConnectionInitializers = [refuser],
            MaxConnectionsPerNode = 1,
            ReconnectBackoffMin = backoff,
            ReconnectBackoffMax = backoff,
        });
        var collection = cluster.Bucket("b").DefaultCollection();
        // A connection that lasted the backoff counts as healthy: its loss is reconnected at once,
        // so the operations below go straight to connecting.
        await Task.Delay(backoff + TimeSpan.FromMilliseconds(100));
        cluster.Nodes[0].Connections[0].Fail(new IOException("dropped by the test"));

        // All arrive before any attempt has failed, so all queue for the one connect attempt.
        var operations = Enumerable.Range(0, 50).Select(i => collection.GetAsync($"k{i}").AsTask()).ToArray();
        foreach (var operation in operations)
            await Record.ExceptionAsync(() => operation);

        // The first reconnect attempt fails and starts the backoff; the callers queued behind it
        // must fail with it, not each make an attempt of their own. (The pool's own retry after
        // the backoff may add one more on a slow machine.)
        Assert.InRange(Volatile.Read(ref refuser.Attempts), 2, 3);
    }

    /// <summary>Bootstrap work that outlasts the connection: it ends only once the server has closed it.</summary>
    private sealed class OutlivesTheConnection : IConnectionInitializer
    {
        public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
        {
            var watch = System.Diagnostics.Stopwatch.StartNew();
            while (((Connection)connection).IsAlive && watch.Elapsed < TimeSpan.FromSeconds(10))
                await Task.Delay(5, cancellationToken);
        }
    }

    [Fact]
    public async Task AConnectionThatDiesWhileBootstrappingLeavesThePool()
    {
        await using var server = new ClosingServer();

        await using var cluster = await Cluster.ConnectAsync(server.ConnectionString, new ClusterOptions
        {
            ConnectionInitializers = [new OutlivesTheConnection()],
            MaxConnectionsPerNode = 1,
            // No reconnect during the test: the pool's content is then only what the start left.
            ReconnectBackoffMin = TimeSpan.FromSeconds(30),
            ReconnectBackoffMax = TimeSpan.FromSeconds(30),
        });

        // Closed fired before the pool listened for it: the dead connection must not stay in
        // the pool, where it would count towards the maximum and never be replaced.
        Assert.Empty(cluster.Nodes[0].Connections);
    }

    [Fact]
    public async Task OperationsDoNotReconnectInALoopToAServerThatClosesAtOnce()
    {
        await using var server = new ClosingServer();

        await using (var cluster = await Cluster.ConnectAsync(server.ConnectionString, new ClusterOptions
        {
            MaxConnectionsPerNode = 1,
            ReconnectBackoffMin = TimeSpan.FromMilliseconds(50),
            ReconnectBackoffMax = TimeSpan.FromSeconds(1),
        }))
        {
            // One operation after another for a second, each waiting up to its timeout for a
            // connection: they must wait for the pool's backed-off reconnect, not each connect anew.
            var collection = cluster.Bucket("b").DefaultCollection();
            var watch = System.Diagnostics.Stopwatch.StartNew();
            while (watch.Elapsed < TimeSpan.FromSeconds(1))
                await Record.ExceptionAsync(async () =>
                    (await collection.GetAsync("k", new GetOptions { Timeout = TimeSpan.FromMilliseconds(300) })).Dispose());
        }

        Assert.InRange(server.Accepted, 1, 20);
    }
}
