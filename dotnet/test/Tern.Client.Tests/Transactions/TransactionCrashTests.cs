using System.Text.Json.Nodes;
using Tern.Client.Tests.Support;
using Tern.Client.Transactions;

namespace Tern.Client.Tests.Transactions;

/// <summary>
/// ternd killed (SIGKILL) in the middle of a transaction and started again on the same data:
/// killed right after the commit point, every document ends committed; killed while documents are
/// being staged, the transaction rolls back and every document ends as it was. Never half of
/// them, and no ATR entry is left once cleanup has run. The writes are PersistToMajority, so
/// what ternd acknowledged is on its disk when it dies.
/// </summary>
public class TransactionCrashTests(CouchbaseFixture fixture) : IClassFixture<CouchbaseFixture>
{
    private const int Documents = 20;

    private readonly string _run = Guid.NewGuid().ToString("N")[..8];

    private Collection Collection => fixture.Bucket.DefaultCollection();

    [Fact]
    public async Task KilledAfterTheCommitPointEveryDocumentEndsCommitted()
    {
        var keys = await SeedAsync("after");
        await using var cluster = await ConnectAsync(afterCommitPoint: RestartTerndAsync);

        var result = await cluster.Transactions.RunAsync(ctx => ReplaceAllAsync(cluster, ctx, keys), Options);

        Assert.False(string.IsNullOrEmpty(result.TransactionId));
        await cluster.DisposeAsync(); // its client-attempt cleanup finishes what the commit left, if anything
        foreach (var key in keys)
            Assert.Equal(2, await Collection.ValueOf(key));
        await AssertNoLinks(keys);
    }

    [Fact]
    public async Task KilledWhileStagingEveryDocumentEndsAsItWas()
    {
        var keys = await SeedAsync("during");
        await using var cluster = await ConnectAsync(afterCommitPoint: null);

        await Assert.ThrowsAsync<Exceptions.TransactionFailedException>(() => cluster.Transactions.RunAsync(async ctx =>
        {
            var collection = cluster.Bucket(CouchbaseFixture.BucketName).DefaultCollection();
            for (var i = 0; i < keys.Length / 2; i++)
                await ctx.ReplaceAsync(await ctx.GetAsync(collection, keys[i]), new { v = 2 });
            await RestartTerndAsync();
            throw new InvalidOperationException("the application gives up after the restart");
        }, Options));

        await cluster.DisposeAsync();
        foreach (var key in keys)
            Assert.Equal(1, await Collection.ValueOf(key));
        await AssertNoLinks(keys);
    }

    private static readonly TransactionOptions Options = new()
    {
        Timeout = TimeSpan.FromSeconds(60), DurabilityLevel = DurabilityLevel.PersistToMajority,
    };

    private async Task RestartTerndAsync()
    {
        fixture.Server.Kill();
        await fixture.Server.RestartAsync();
        // The fixture's client saw its connection die, and fails operations at once while it backs
        // off before connecting again (NodeUnavailableException), as it should: the assertions
        // read through it, so wait until it is back, however long its backoff lasts.
        await Poll.UntilLongAsync(async () =>
        {
            try
            {
                await Collection.ExistsAsync($"crash-probe-{_run}");
                return true;
            }
            catch (Exceptions.NodeUnavailableException)
            {
                return false;
            }
        }, "the fixture's client never connected to the restarted ternd", intervalMs: 20);
    }

    private async Task<Cluster> ConnectAsync(Func<Task>? afterCommitPoint) =>
        await Cluster.ConnectAsync(fixture.Server.CouchbaseConnectionString, CouchbaseFixture.Options() with
        {
            Transactions = new TransactionsConfig { CleanupLostAttempts = false, AfterCommitPointHook = afterCommitPoint },
        });

    private static async Task ReplaceAllAsync(Cluster cluster, AttemptContext ctx, string[] keys)
    {
        var collection = cluster.Bucket(CouchbaseFixture.BucketName).DefaultCollection();
        foreach (var key in keys)
            await ctx.ReplaceAsync(await ctx.GetAsync(collection, key), new { v = 2 });
    }

    private async Task<string[]> SeedAsync(string name)
    {
        var keys = Enumerable.Range(0, Documents).Select(i => $"crash-{name}-{_run}-{i}").ToArray();
        foreach (var key in keys)
            await Collection.UpsertAsync(key, new { v = 1 }, new UpsertOptions { Durability = DurabilityLevel.PersistToMajority });
        return keys;
    }


    /// <summary>No document carries links, and the ATR the transaction used (its first document's) holds no entry.</summary>
    private async Task AssertNoLinks(string[] keys)
    {
        foreach (var key in keys)
            await Collection.AssertNoLinks(key);
        using var atr = await Collection.LookupInAsync(AtrIds.ForKey(keys[0]), specs => specs.Get("attempts", isXattr: true));
        Assert.True(!atr.Exists(0) || atr.ContentAs<JsonObject>(0)!.Count == 0, "an ATR entry is left");
    }
}
