using Microsoft.Extensions.Time.Testing;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>
/// Multiplexing, timeouts, orphans and failures, driven by a scripted fake server. Timeouts run on a
/// FakeTimeProvider: the test moves the clock, so each outcome and its message are exact.
/// </summary>
public class ConnectionBehaviourTests
{
    [Fact]
    public async Task ResponsesMayArriveInAnyOrder()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromSeconds(10));
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);

        var first = collection.GetAsync("first").AsTask();
        var second = collection.GetAsync("second").AsTask();
        var requests = await server.ReceiveAsync(2);
        Assert.NotEqual(requests[0].Opaque, requests[1].Opaque);
        foreach (var request in requests.Reverse())
            await server.RespondAsync(request, value: "value of " + request.Key);

        using var firstResult = await first;
        using var secondResult = await second;
        Assert.Equal("value of first", firstResult.ContentAsString());
        Assert.Equal("value of second", secondResult.ContentAsString());
    }

    [Fact]
    public async Task UnansweredOperationsTimeOutAtTheirDeadlinesSayingWhatHappened()
    {
        var time = new FakeTimeProvider();
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions { KvTimeout = TimeSpan.FromSeconds(2), TimeProvider = time });
        var (server, collection, connection) = (fake.Server, fake.Collection, fake.Connection);

        var read = collection.GetAsync("silent").AsTask();
        var write = collection.UpsertAsync("written", "v", new UpsertOptions { Timeout = TimeSpan.FromSeconds(3) }).AsTask();
        var slow = collection.GetAsync("patient", new GetOptions { Timeout = TimeSpan.FromSeconds(5) }).AsTask();
        await server.ReceiveAsync(3); // all three were sent, so each timeout must say so

        time.Advance(TimeSpan.FromMilliseconds(1999));
        Assert.Equal(3, connection.InFlight); // the sweeper runs on the clock, and no deadline has come
        time.Advance(TimeSpan.FromMilliseconds(1));
        var readError = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => read);
        Assert.Equal(2, connection.InFlight);
        time.Advance(TimeSpan.FromSeconds(1));
        var writeError = await Assert.ThrowsAsync<AmbiguousTimeoutException>(() => write);
        Assert.Equal(1, connection.InFlight);
        time.Advance(TimeSpan.FromSeconds(2));
        var slowError = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => slow);
        Assert.Equal(0, connection.InFlight);

        Assert.Equal(("silent", "written", "patient"), (readError.Key, writeError.Key, slowError.Key));
        Assert.Equal($"get of key 'silent' timed out after 2000 ms (timeout 2000 ms); it was sent to {fake.Endpoint} and no " +
            "response came; 3 operations were in flight on the connection and 0 queued for a slot", readError.Message);
        Assert.Equal($"set of key 'written' timed out after 3000 ms (timeout 3000 ms); it was sent to {fake.Endpoint} and no " +
            "response came; 2 operations were in flight on the connection and 0 queued for a slot", writeError.Message);
        Assert.Equal($"get of key 'patient' timed out after 5000 ms (timeout 5000 ms); it was sent to {fake.Endpoint} and no " +
            "response came; 1 operations were in flight on the connection and 0 queued for a slot", slowError.Message);
    }

    [Fact]
    public async Task LateResponsesAreCountedAndSummarisedAsOrphansOncePerInterval()
    {
        var time = new FakeTimeProvider();
        using var log = new CapturedLog();
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions
        {
            KvTimeout = TimeSpan.FromMilliseconds(200),
            OrphanReportInterval = TimeSpan.FromSeconds(10),
            TimeProvider = time,
            LoggerFactory = log.Factory,
        });
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);

        var late = collection.GetAsync("late-key").AsTask();
        var request = (await server.ReceiveAsync(1))[0];
        time.Advance(TimeSpan.FromMilliseconds(200));
        await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => late);
        time.Advance(TimeSpan.FromMilliseconds(300));
        await server.RespondAsync(request, value: "too late");
        // A later operation on the same connection proves the orphan was read and skipped.
        var next = collection.GetAsync("next", new GetOptions { Timeout = TimeSpan.FromSeconds(10) }).AsTask();
        await server.RespondAsync((await server.ReceiveAsync(1))[0], value: "on time");
        using (var result = await next)
            Assert.Equal("on time", result.ContentAsString());
        Assert.Equal(1, cluster.OrphanCount);

        time.Advance(TimeSpan.FromMilliseconds(9499)); // the report is due 10 s after the cluster started
        Assert.Empty(log.Messages("orphaned"));
        time.Advance(TimeSpan.FromMilliseconds(1));
        Assert.Equal([$"1 orphaned responses (1 in total); slowest: get 'late-key' on {fake.Connection.Name} opaque " +
            $"{request.Opaque} answered after 500 ms (timeout 200 ms);"], log.Messages("orphaned"));
        time.Advance(TimeSpan.FromSeconds(10));
        Assert.Single(log.Messages("orphaned")); // nothing new since
    }

    [Fact]
    public async Task AFullInFlightQueueTimesOutCallersWithoutSending()
    {
        var time = new FakeTimeProvider();
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions
        {
            KvTimeout = TimeSpan.FromMilliseconds(300),
            MaxInFlightPerConnection = 1,
            TimeProvider = time,
        });
        var (server, collection, connection) = (fake.Server, fake.Collection, fake.Connection);

        var occupying = collection.GetAsync("occupying", new GetOptions { Timeout = TimeSpan.FromSeconds(30) }).AsTask();
        var queued = collection.GetAsync("queued").AsTask();
        time.Advance(TimeSpan.FromMilliseconds(299));
        Assert.Equal((1, 1), (connection.InFlight, connection.Queued));
        time.Advance(TimeSpan.FromMilliseconds(1));
        var error = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => queued);

        Assert.Equal("queued", error.Key);
        Assert.Equal($"get of key 'queued' timed out after 300 ms (timeout 300 ms) without being sent: the in-flight queue " +
            $"to {fake.Endpoint} is full (1 of 1 in flight, 0 queued)", error.Message);
        var request = Assert.Single(await server.ReceiveAsync(1));
        Assert.Equal("occupying", request.Key);
        await server.RespondAsync(request, value: "v");
        using (var result = await occupying)
            Assert.Equal("v", result.ContentAsString());
        await AssertNextRequestIsAMarkerAsync(server, collection); // so the timed-out one never left
    }

    [Fact]
    public async Task CancellingAnOperationQueuedForASlotThrowsWithTheCallersTokenWithoutSending()
    {
        // The clock never moves: only the cancellation can end the wait.
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions
        {
            MaxInFlightPerConnection = 1,
            TimeProvider = new FakeTimeProvider(),
        });
        var (server, collection, connection) = (fake.Server, fake.Collection, fake.Connection);
        using var cancellation = new CancellationTokenSource();

        var occupying = collection.GetAsync("occupying").AsTask();
        var queued = collection.GetAsync("queued", new GetOptions { CancellationToken = cancellation.Token }).AsTask();
        Assert.Equal((1, 1), (connection.InFlight, connection.Queued));
        cancellation.Cancel();
        var error = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => queued);

        Assert.Equal(cancellation.Token, error.CancellationToken);
        Assert.Equal((1, 0), (connection.InFlight, connection.Queued));
        var request = Assert.Single(await server.ReceiveAsync(1));
        Assert.Equal("occupying", request.Key);
        await server.RespondAsync(request, value: "v");
        using (var result = await occupying)
            Assert.Equal("v", result.ContentAsString());
        await AssertNextRequestIsAMarkerAsync(server, collection); // so the cancelled one never left
    }

    /// <summary>
    /// Sends a marker once the connection is idle and checks it is the next request the server
    /// reads: an operation that gave up while queued must not have been sent after all.
    /// </summary>
    private static async Task AssertNextRequestIsAMarkerAsync(FakeServer server, Collection collection)
    {
        var marker = collection.GetAsync("marker").AsTask();
        var request = Assert.Single(await server.ReceiveAsync(1));
        Assert.Equal("marker", request.Key);
        await server.RespondAsync(request, value: "m");
        using var result = await marker;
        Assert.Equal("m", result.ContentAsString());
    }

    [Fact]
    public async Task AnOperationTimesOutAtItsDeadlineWhileAReconnectHangsInBootstrap()
    {
        var time = new FakeTimeProvider();
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions
        {
            KvTimeout = TimeSpan.FromMilliseconds(300),
            ConnectionInitializers = [new HangingBootstrap(passing: 1)],
            TimeProvider = time,
        });

        fake.Connection.Fail(new IOException("dropped by the test"));
        var during = fake.Collection.GetAsync("during-hang").AsTask();
        time.Advance(TimeSpan.FromMilliseconds(300));
        var error = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => during);

        Assert.Equal($"get of key 'during-hang' timed out after 300 ms (timeout 300 ms) without being sent: no connection " +
            $"to {fake.Endpoint} was ready in time (connecting or bootstrapping)", error.Message);
    }

    [Fact]
    public async Task AnEffectivelyInfiniteTimeoutWaitsForTheResponse()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromSeconds(10), maxInFlight: 1);
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);
        var forever = new GetOptions { Timeout = TimeSpan.MaxValue };

        // The second waits for the first's slot: both the in-flight deadline and the queue wait
        // must take a timeout far beyond any timer's range.
        var first = collection.GetAsync("first", forever).AsTask();
        var second = collection.GetAsync("second", forever).AsTask();
        await server.RespondAsync((await server.ReceiveAsync(1))[0], value: "one");
        await server.RespondAsync((await server.ReceiveAsync(1))[0], value: "two");

        using var firstResult = await first;
        using var secondResult = await second;
        Assert.Equal("one", firstResult.ContentAsString());
        Assert.Equal("two", secondResult.ContentAsString());
    }

    [Fact]
    public async Task AnEffectivelyInfiniteConnectTimeoutConnects()
    {
        await using var server = new FakeServer();
        await using var cluster = await Cluster.ConnectAsync(server.ConnectionString,
            new ClusterOptions { ConnectTimeout = TimeSpan.MaxValue, MaxConnectionsPerNode = 1 });
        var pending = cluster.Bucket("b").DefaultCollection().GetAsync("k").AsTask();
        await server.RespondAsync((await server.ReceiveAsync(1))[0], value: "v");
        using var result = await pending;
        Assert.Equal("v", result.ContentAsString());
    }

    [Fact]
    public async Task OperationsAfterDisposeSayTheClusterIsDisposed()
    {
        var fake = await FakeCluster.StartAsync(TimeSpan.FromSeconds(10));
        await fake.DisposeAsync();

        var error = await Assert.ThrowsAsync<ObjectDisposedException>(() => fake.Collection.GetAsync("k").AsTask());
        Assert.Contains("disposed", error.Message);
    }

    [Fact]
    public async Task CancellingConnectThrowsOperationCanceled()
    {
        await using var server = new FakeServer();
        var bootstrap = new HangingBootstrap();
        using var cancellation = new CancellationTokenSource();
        // The clock never moves, so the connect timeout cannot end the connect: only the cancellation can.
        var connecting = Cluster.ConnectAsync(server.ConnectionString,
            new ClusterOptions { ConnectionInitializers = [bootstrap], TimeProvider = new FakeTimeProvider() }, cancellation.Token);

        await bootstrap.Hanging.WaitAsync(TimeSpan.FromSeconds(10)); // cancel mid-bootstrap, not before the connect began
        cancellation.Cancel();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => connecting.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    [Fact]
    public async Task ADroppedConnectionFailsInFlightOperationsAtOnce()
    {
        // The clock never moves: the operation can only end through the connection's failure.
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions { TimeProvider = new FakeTimeProvider() });
        var (server, collection, connection) = (fake.Server, fake.Collection, fake.Connection);

        var pending = collection.UpsertAsync("pending", "v").AsTask();
        await server.ReceiveAsync(1);
        await server.DisconnectAsync();
        var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => pending);

        Assert.Equal("pending", error.Key);
        Assert.Equal($"set of key 'pending' failed: connection {connection.Name} is down (connection to {fake.Endpoint} " +
            "was closed by the server); the request was sent, so the change may or may not have been applied", error.Message);
    }

    [Fact]
    public async Task CancellationCompletesAnInFlightOperation()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromSeconds(30));
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);
        using var cancellation = new CancellationTokenSource();

        var pending = Assert.ThrowsAnyAsync<OperationCanceledException>(
            () => collection.GetAsync("cancelled", new GetOptions { CancellationToken = cancellation.Token }).AsTask());
        await server.ReceiveAsync(1);
        cancellation.Cancel();
        await pending;
    }

    [Fact]
    public async Task ConnectingToNothingFailsNamingTheEndpoint()
    {
        var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        var port = ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();

        var error = await Assert.ThrowsAsync<NodeUnavailableException>(
            () => Cluster.ConnectAsync($"memcached://127.0.0.1:{port}"));

        Assert.Contains($"127.0.0.1:{port}", error.Message);
    }

    [Fact]
    public async Task ServerErrorsBecomeTypedExceptions()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromSeconds(10));
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);

        var locked = Assert.ThrowsAsync<DocumentLockedException>(() => collection.UpsertAsync("locked", "v").AsTask());
        var tooBig = Assert.ThrowsAsync<ValueTooLargeException>(() => collection.UpsertAsync("big", "v").AsTask());
        var busy = Assert.ThrowsAsync<TemporaryFailureException>(() => collection.GetAsync("busy").AsTask());
        var requests = await server.ReceiveAsync(3);
        await server.RespondAsync(requests[0], ResponseStatus.Locked);
        await server.RespondAsync(requests[1], ResponseStatus.E2big);
        await server.RespondAsync(requests[2], ResponseStatus.Etmpfail);

        Assert.Equal("locked", (await locked).Key);
        Assert.Equal("big", (await tooBig).Key);
        Assert.Equal((ushort)ResponseStatus.Etmpfail, (await busy).Status);
    }
}
