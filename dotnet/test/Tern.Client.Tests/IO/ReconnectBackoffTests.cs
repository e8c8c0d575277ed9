using Microsoft.Extensions.Time.Testing;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>
/// Reconnecting backs off, even when the TCP connect itself succeeds. The pool runs on a
/// FakeTimeProvider: the test moves the clock and reads the waits the pool logs.
/// </summary>
public class ReconnectBackoffTests
{
    private const string Waiting = "reconnecting to";

    private static Task<Cluster> ConnectAsync(string connectionString, FakeTimeProvider time, CapturedLog log,
        TimeSpan backoffMin, TimeSpan backoffMax, params IConnectionInitializer[] initializers) =>
        Cluster.ConnectAsync(connectionString, new ClusterOptions
        {
            MaxConnectionsPerNode = 1,
            ReconnectBackoffMin = backoffMin,
            ReconnectBackoffMax = backoffMax,
            ConnectionInitializers = initializers,
            TimeProvider = time,
            LoggerFactory = log.Factory,
        });

    [Fact]
    public async Task AServerThatClosesEveryConnectionAtOnceIsReconnectedToWithADoublingBackoff()
    {
        var time = new FakeTimeProvider();
        using var log = new CapturedLog();
        await using var server = new ClosingServer();
        await using var cluster = await ConnectAsync(server.ConnectionString, time, log,
            TimeSpan.FromMilliseconds(50), TimeSpan.FromSeconds(1));

        int[] waits = [50, 100, 200, 400, 800, 1000, 1000];
        for (var i = 0; i < waits.Length; i++)
        {
            var logged = await log.WaitForAsync(Waiting, i + 1);
            Assert.Equal($"reconnecting to {server.Endpoint} in {waits[i]} ms", logged[i]);
            // Each connection so far was followed by one wait; the clock alone ends it.
            Assert.Equal(i + 1, server.Accepted);
            time.Advance(TimeSpan.FromMilliseconds(waits[i]));
        }
    }

    [Fact]
    public async Task OperationsWaitForTheScheduledReconnectInsteadOfConnectingAnew()
    {
        var time = new FakeTimeProvider();
        using var log = new CapturedLog();
        await using var server = new ClosingServer();
        await using var cluster = await ConnectAsync(server.ConnectionString, time, log,
            TimeSpan.FromMilliseconds(500), TimeSpan.FromSeconds(5));
        await log.WaitForAsync(Waiting); // the first connection died young: the next is due in 500 ms

        var waiting = cluster.Bucket("b").DefaultCollection()
            .GetAsync("k", new GetOptions { Timeout = TimeSpan.FromMilliseconds(300) }).AsTask();
        time.Advance(TimeSpan.FromMilliseconds(300));
        var error = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => waiting);

        Assert.Equal($"get of key 'k' timed out after 300 ms (timeout 300 ms) without being sent: no connection to " +
            $"{server.Endpoint} was ready in time (connecting or bootstrapping)", error.Message);
        Assert.Equal(1, server.Accepted);
        time.Advance(TimeSpan.FromMilliseconds(200));
        Assert.Equal([$"reconnecting to {server.Endpoint} in 500 ms", $"reconnecting to {server.Endpoint} in 1000 ms"],
            await log.WaitForAsync(Waiting, 2));
        Assert.Equal(2, server.Accepted);
    }

    /// <summary>Lets the first connection through; refuses every later one once the test says so.</summary>
    private sealed class RefusesAfterFirst : IConnectionInitializer
    {
        private readonly TaskCompletionSource _secondAttempt = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource _refuse = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _attempts;

        public int Attempts => Volatile.Read(ref _attempts);

        public Task SecondAttemptStarted => _secondAttempt.Task;

        public void Refuse() => _refuse.SetResult();

        public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
        {
            if (Interlocked.Increment(ref _attempts) == 1)
                return;
            _secondAttempt.TrySetResult();
            await _refuse.Task.WaitAsync(cancellationToken);
            throw new IOException("refused by the test");
        }
    }

    [Fact]
    public async Task CallersWaitingToConnectShareTheFailureOfTheAttemptUnderWay()
    {
        var time = new FakeTimeProvider();
        using var log = new CapturedLog();
        var refuser = new RefusesAfterFirst();
        await using var server = new FakeServer();
        var backoff = TimeSpan.FromSeconds(1);
        await using var cluster = await ConnectAsync(server.ConnectionString, time, log, backoff, backoff, refuser);
        var collection = cluster.Bucket("b").DefaultCollection();
        // A connection that lasted the backoff counts as healthy: the pool reconnects at once.
        time.Advance(backoff);
        cluster.Nodes[0].Connections[0].Fail(new IOException("dropped by the test"));
        await refuser.SecondAttemptStarted.WaitAsync(TimeSpan.FromSeconds(10));

        // Each operation finds no connection and queues behind the attempt under way.
        var operations = Enumerable.Range(0, 50).Select(i => collection.GetAsync($"k{i}").AsTask()).ToArray();
        refuser.Refuse();

        // The attempt failed and started the backoff; the callers queued behind it fail with it
        // rather than each make an attempt of their own.
        foreach (var operation in operations)
        {
            var error = await Assert.ThrowsAsync<NodeUnavailableException>(() => operation);
            Assert.Equal($"node 127.0.0.1:{server.Port} is unavailable (refused by the test); next connect attempt in 1000 ms",
                error.Message);
        }
        Assert.Equal(2, refuser.Attempts);
        Assert.Equal([$"reconnecting to 127.0.0.1:{server.Port} in 1000 ms"], await log.WaitForAsync(Waiting));
    }

    /// <summary>Bootstrap work that outlasts the connection: it ends only once the server has closed it.</summary>
    private sealed class OutlivesTheConnection : IConnectionInitializer
    {
        public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
        {
            var closed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            ((Connection)connection).WhenClosed(_ => closed.TrySetResult());
            await closed.Task.WaitAsync(cancellationToken);
        }
    }

    [Fact]
    public async Task AConnectionThatDiesWhileBootstrappingLeavesThePool()
    {
        using var log = new CapturedLog();
        await using var server = new ClosingServer();

        // The fake clock never moves, so the pool never reconnects: it holds only what the start left.
        await using var cluster = await ConnectAsync(server.ConnectionString, new FakeTimeProvider(), log,
            TimeSpan.FromMilliseconds(50), TimeSpan.FromSeconds(1), new OutlivesTheConnection());

        // Closed fired before the pool listened for it: the dead connection must not stay in
        // the pool, where it would count towards the maximum and never be replaced.
        Assert.Empty(cluster.Nodes[0].Connections);
    }
}
