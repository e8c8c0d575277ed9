using System.Text.Json.Nodes;
using Tern.Client.Tests.Support;
using Tern.Client.Transactions;

namespace Tern.Client.Tests.Transactions;

/// <summary>
/// Transactions on three ternd nodes (scripts/cluster.sh): each transfer reads and writes accounts
/// on two different nodes, its ATR on a third or one of them, while a third of the vbuckets moves
/// to another node in the middle. ternd moves no data, so the accounts (and their ATRs, which sit
/// in their first document's vbucket) live in vbuckets that stay put; the move changes the map the
/// transactions route by while they run. Every transfer that commits shows exactly once, and the
/// total is conserved.
/// </summary>
[Trait("Server", "ternd-cluster")]
public sealed class TransactionClusterTests
{
    private const int Nodes = 3;
    private const int Accounts = 10;
    private const int Workers = 4;
    private const int StartBalance = 1000;

    [Fact]
    public async Task TransfersAcrossNodesConserveTheTotalThroughAMapChange()
    {
        await using var nodes = await TerndCluster.StartAsync(Nodes);
        await using var cluster = await Cluster.ConnectAsync(nodes.ConnectionString, CouchbaseFixture.Options());
        var bucket = cluster.Bucket(CouchbaseFixture.BucketName);
        await bucket.WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout);
        var collection = bucket.DefaultCollection();
        var run = Guid.NewGuid().ToString("N")[..8];
        // Half the accounts on node 0's first half of vbuckets, half on node 2's: the move takes node 0's second half.
        var accounts = VBuckets.KeysWhere($"acct-{run}-a", vb => vb < 170).Take(Accounts / 2)
            .Concat(VBuckets.KeysWhere($"acct-{run}-b", vb => vb >= 700).Take(Accounts / 2)).ToArray();
        foreach (var account in accounts)
            await collection.UpsertAsync(account, new { balance = StartBalance });

        var deltas = new int[Accounts];
        var committed = 0;
        using var stop = new CancellationTokenSource();
        async Task WorkAsync(int seed)
        {
            var random = new Random(seed);
            while (!stop.IsCancellationRequested)
            {
                var from = random.Next(Accounts / 2); // node 0
                var to = Accounts / 2 + random.Next(Accounts / 2); // node 2
                if (random.Next(2) == 0)
                    (from, to) = (to, from);
                var amount = 1 + random.Next(10);
                try
                {
                    await cluster.Transactions.RunAsync(async ctx =>
                    {
                        var a = await ctx.GetAsync(collection, accounts[from]);
                        var b = await ctx.GetAsync(collection, accounts[to]);
                        await ctx.ReplaceAsync(a, new { balance = a.ContentAs<JsonObject>()!["balance"]!.GetValue<int>() - amount });
                        await ctx.ReplaceAsync(b, new { balance = b.ContentAs<JsonObject>()!["balance"]!.GetValue<int>() + amount });
                    }, new TransactionOptions { Timeout = TimeSpan.FromSeconds(30) });
                }
                catch (Exceptions.TransactionExpiredException)
                {
                    // Out of time before its commit point (four workers on ten accounts meet often, and a
                    // busy machine is slow): rolled back, nothing applied. Any other failure fails the test.
                    continue;
                }
                lock (deltas)
                {
                    deltas[from] -= amount;
                    deltas[to] += amount;
                    committed++;
                }
            }
        }

        var workers = Enumerable.Range(0, Workers).Select(seed => Task.Run(() => WorkAsync(seed))).ToArray();
        await Poll.UntilLongAsync(() => Task.FromResult(Volatile.Read(ref committed) >= 100), "100 transfers before the move");
        await nodes.MoveAsync("170-341", to: 1);
        var atMove = Volatile.Read(ref committed);
        await Poll.UntilLongAsync(() => Task.FromResult(Volatile.Read(ref committed) >= atMove + 100), "100 transfers after the move");
        stop.Cancel();
        await Task.WhenAll(workers); // a transfer that failed fails the test here

        var balances = new int[Accounts];
        await cluster.Transactions.RunAsync(async ctx =>
        {
            for (var i = 0; i < Accounts; i++)
                balances[i] = (await ctx.GetAsync(collection, accounts[i])).ContentAs<JsonObject>()!["balance"]!.GetValue<int>();
        });
        Assert.Equal(Accounts * StartBalance, balances.Sum());
        Assert.Equal(Enumerable.Range(0, Accounts).Select(i => StartBalance + deltas[i]), balances);
    }
}
