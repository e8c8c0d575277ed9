using System.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;
using TimeoutException = Tern.Client.Exceptions.TimeoutException;

namespace Tern.Client.Tests.Integration;

/// <summary>Fault tests run alone: they pause and kill servers, which other tests' timings need not absorb.</summary>
[CollectionDefinition(nameof(FaultCollection), DisableParallelization = true)]
public sealed class FaultCollection;

/// <summary>
/// A real server process is paused (SIGSTOP) or killed under the client. Each test owns its
/// server, since it breaks it.
/// </summary>
[Collection(nameof(FaultCollection))]
public abstract class FaultTests
{
    // Long enough that the send loop has run before any deadline passes, even beside CPU
    // burners: the paused-server test asserts each timeout says the request was sent.
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2);

    // Against a real process only an upper bound holds on a busy machine; the exact timing is
    // ConnectionBehaviourTests' (on a fake clock).
    private static readonly TimeSpan Margin = TimeSpan.FromSeconds(3);

    protected abstract Task<ServerProcess> StartServerAsync();

    private static Task<Cluster> ConnectAsync(ServerProcess server, TimeSpan timeout) =>
        Cluster.ConnectAsync(server.ConnectionString, new ClusterOptions
        {
            KvTimeout = timeout,
            MaxConnectionsPerNode = 1,
            ReconnectBackoffMin = TimeSpan.FromMilliseconds(20),
            ReconnectBackoffMax = TimeSpan.FromMilliseconds(200),
        });

    [Fact]
    public async Task APausedServerTimesOutEveryOperationAndTheConnectionRecoversOnResume()
    {
        await using var server = await StartServerAsync();
        await using var cluster = await ConnectAsync(server, Timeout);
        var collection = cluster.Bucket("b").DefaultCollection();
        await collection.UpsertAsync("stable", "before");
        var connection = cluster.Nodes[0].Connections[0];

        server.Pause();
        var outcomes = await Task.WhenAll(Enumerable.Range(0, 20).Select(async i =>
        {
            var watch = Stopwatch.StartNew();
            var error = await Record.ExceptionAsync(async () =>
            {
                if (i % 2 == 0)
                    (await collection.GetAsync($"read-{i}")).Dispose();
                else
                    await collection.UpsertAsync($"write-{i}", "v");
            });
            return (i, error, watch.Elapsed);
        }));
        server.Resume();

        foreach (var (i, error, elapsed) in outcomes)
        {
            Assert.IsAssignableFrom<TimeoutException>(error);
            Assert.IsType(i % 2 == 0 ? typeof(UnambiguousTimeoutException) : typeof(AmbiguousTimeoutException), error);
            Assert.True(elapsed < Timeout + Margin, $"operation {i} took {elapsed} to time out");
            Assert.Contains("it was sent", error!.Message);
        }
        using var after = await collection.GetAsync("stable", new GetOptions { Timeout = TimeSpan.FromSeconds(5) });
        Assert.Equal("before", after.ContentAsString());
        Assert.Same(connection, cluster.Nodes[0].Connections[0]);
        // The server answered the timed-out requests after resuming: each is an orphan.
        await Poll.Until(() => cluster.OrphanCount == 20, $"orphans: {cluster.OrphanCount}");
    }

    [Fact]
    public async Task InFlightOperationsFailAtOnceWhenTheServerDies()
    {
        await using var server = await StartServerAsync();
        await using var cluster = await ConnectAsync(server, TimeSpan.FromSeconds(20));
        var collection = cluster.Bucket("b").DefaultCollection();
        await collection.UpsertAsync("k", "v");

        server.Pause();
        var pending = Enumerable.Range(0, 5).Select(i => collection.UpsertAsync($"pending-{i}", "v").AsTask()).ToArray();
        var watch = Stopwatch.StartNew();
        server.Kill();

        foreach (var operation in pending)
        {
            var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => operation);
            Assert.StartsWith("pending-", error.Key);
        }
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(5), $"in-flight operations took {watch.Elapsed} to fail");
    }

    [Fact]
    public async Task AKilledServerFailsOperationsFastAndWorkResumesAfterRestart()
    {
        await using var server = await StartServerAsync();
        var timeout = TimeSpan.FromSeconds(30);
        await using var cluster = await ConnectAsync(server, timeout);
        var collection = cluster.Bucket("b").DefaultCollection();
        await collection.UpsertAsync("k", "v");

        server.Kill();
        for (var i = 0; i < 5; i++)
        {
            var watch = Stopwatch.StartNew();
            var error = await Record.ExceptionAsync(async () => await collection.UpsertAsync($"down-{i}", "v"));
            Assert.True(error is ConnectionFailedException or NodeUnavailableException, $"unexpected {error}");
            Assert.True(watch.Elapsed < timeout / 3, $"failing took {watch.Elapsed}, the timeout is {timeout}");
        }

        await server.RestartAsync();
        await Poll.Until(async () =>
        {
            try
            {
                await collection.UpsertAsync("k", "after restart");
                return true;
            }
            catch (TernException)
            {
                return false;
            }
        }, "no operation succeeded after the restart");
        using var result = await collection.GetAsync("k");
        Assert.Equal("after restart", result.ContentAsString());
    }
}

[Trait("Server", "memcached")]
public sealed class MemcachedFaultTests : FaultTests
{
    protected override Task<ServerProcess> StartServerAsync() => ServerProcess.StartMemcachedAsync();
}

[Trait("Server", "ternd")]
public sealed class TerndFaultTests : FaultTests
{
    protected override Task<ServerProcess> StartServerAsync() => ServerProcess.StartTerndAsync();
}
