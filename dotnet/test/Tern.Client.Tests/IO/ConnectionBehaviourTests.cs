using System.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>Multiplexing, timeouts, orphans and failures, driven by a scripted fake server.</summary>
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
    public async Task UnansweredOperationsTimeOutSayingWhatHappened()
    {
        // Long enough that both requests reach the server before it, even on a loaded machine.
        var timeout = TimeSpan.FromSeconds(2);
        await using var fake = await FakeCluster.StartAsync(timeout);
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);
        var watch = Stopwatch.StartNew();

        var read = Assert.ThrowsAsync<UnambiguousTimeoutException>(() => collection.GetAsync("silent").AsTask());
        var write = Assert.ThrowsAnyAsync<Tern.Client.Exceptions.TimeoutException>(() => collection.UpsertAsync("written", "v").AsTask());
        await server.ReceiveAsync(2);
        var readError = await read;
        var writeError = await write;
        Assert.True(writeError is AmbiguousTimeoutException, writeError.Message);

        Assert.InRange(watch.Elapsed, timeout, timeout + TimeSpan.FromSeconds(2));
        Assert.Equal("silent", readError.Key);
        Assert.Contains("timed out after", readError.Message);
        Assert.Contains("timeout 2000 ms", readError.Message);
        Assert.Contains("it was sent", readError.Message);
        Assert.Contains("in flight", readError.Message);
        Assert.Contains("queued", readError.Message);
        Assert.Equal("written", writeError.Key);
    }

    [Fact]
    public async Task LateResponsesAreCountedAndSummarisedAsOrphans()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromMilliseconds(200));
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);

        var late = Assert.ThrowsAsync<UnambiguousTimeoutException>(() => collection.GetAsync("late-key").AsTask());
        var request = (await server.ReceiveAsync(1))[0];
        await late;
        await server.RespondAsync(request, value: "too late");
        // A later operation on the same connection proves the orphan was read and skipped.
        var next = collection.GetAsync("next", new GetOptions { Timeout = TimeSpan.FromSeconds(10) }).AsTask();
        await server.RespondAsync((await server.ReceiveAsync(1))[0], value: "on time");
        using (var result = await next)
            Assert.Equal("on time", result.ContentAsString());

        Assert.Equal(1, cluster.OrphanCount);
        var summary = cluster.Orphans.LogSummary();
        Assert.NotNull(summary);
        Assert.Contains("late-key", summary);
        Assert.Contains("answered after", summary);
        Assert.Null(cluster.Orphans.LogSummary()); // nothing new since
    }

    [Fact]
    public async Task AFullInFlightQueueTimesOutCallersWithoutSending()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromMilliseconds(300), maxInFlight: 1);
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);

        var occupying = collection.GetAsync("occupying", new GetOptions { Timeout = TimeSpan.FromSeconds(30) }).AsTask();
        var request = (await server.ReceiveAsync(1))[0];
        var watch = Stopwatch.StartNew();
        var queued = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => collection.GetAsync("queued").AsTask());
        Assert.InRange(watch.Elapsed, TimeSpan.FromMilliseconds(250), TimeSpan.FromMilliseconds(1300));
        await server.RespondAsync(request, value: "v");
        (await occupying).Dispose();

        Assert.Contains("queue", queued.Message);
        Assert.Contains("full", queued.Message);
        Assert.Contains("without being sent", queued.Message);
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

    private sealed class HangingBootstrap : Tern.Client.IO.IConnectionInitializer
    {
        public async ValueTask InitializeAsync(Tern.Client.IO.IKvConnection connection, CancellationToken cancellationToken) =>
            await Task.Delay(Timeout.Infinite, cancellationToken);
    }

    [Fact]
    public async Task CancellingConnectThrowsOperationCanceled()
    {
        await using var server = new FakeServer();
        using var cancellation = new CancellationTokenSource(TimeSpan.FromMilliseconds(100));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Cluster.ConnectAsync(server.ConnectionString,
            new ClusterOptions { ConnectionInitializers = [new HangingBootstrap()] }, cancellation.Token));
    }

    [Fact]
    public async Task ADroppedConnectionFailsInFlightOperationsAtOnce()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromSeconds(30));
        var (server, cluster, collection) = (fake.Server, fake.Cluster, fake.Collection);
        var watch = Stopwatch.StartNew();

        var pending = Assert.ThrowsAsync<ConnectionFailedException>(() => collection.UpsertAsync("pending", "v").AsTask());
        await server.ReceiveAsync(1);
        await server.DisconnectAsync();
        var error = await pending;

        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), $"took {watch.Elapsed}");
        Assert.Equal("pending", error.Key);
        Assert.Contains("may or may not have been applied", error.Message);
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
        await server.RespondAsync(requests[1], ResponseStatus.ValueTooLarge);
        await server.RespondAsync(requests[2], ResponseStatus.TemporaryFailure);

        Assert.Equal("locked", (await locked).Key);
        Assert.Equal("big", (await tooBig).Key);
        Assert.Equal((ushort)ResponseStatus.TemporaryFailure, (await busy).Status);
    }
}
