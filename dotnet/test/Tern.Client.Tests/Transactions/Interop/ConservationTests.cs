using System.Text.Json.Nodes;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;
using Tern.Client.Transactions;
using Xunit.Abstractions;

namespace Tern.Client.Tests.Transactions.Interop;

/// <summary>
/// Tern.Client and the official Node.js SDK (compat/lib/transfer-worker.mjs) move money between the
/// same 20 accounts for 30 s, each with its transactions, while ternd is killed (SIGKILL) and
/// restarted in the middle. Every write is PersistToMajority, so what was acknowledged survives
/// the kill. At the end the total is what it was, and each account moved by exactly the transfers
/// that the two clients saw commit (plus some of those whose commit ended in doubt: each of those
/// happened entirely or not at all).
/// </summary>
public class ConservationTests(ConservationTests.Fixture fixture, ITestOutputHelper output) : IClassFixture<ConservationTests.Fixture>
{
    private const int Accounts = 20;
    private const int StartBalance = 1000;
    private static readonly TimeSpan Duration = TimeSpan.FromSeconds(30);

    private Collection Collection => fixture.Bucket.DefaultCollection();

    [Fact]
    public async Task TransfersOfBothSdksConserveTheTotalAcrossATerndRestart()
    {
        for (var i = 0; i < Accounts; i++)
            await Collection.UpsertAsync($"acct-{i}", new { balance = StartBalance });

        await using var node = ChildProcess.Node("transfer-worker.mjs", fixture.Server.CouchbaseConnectionString,
            ((int)Duration.TotalSeconds).ToString(), Accounts.ToString(), "7", "PersistToMajority");
        var tern = Task.Run(() => TransferAsync(fixture.Cluster, Duration, new Random(11)));

        // A third of the way in, while both are transferring: SIGKILL, and back on the same port and data.
        await Task.Delay(Duration / 3);
        fixture.Server.Kill();
        await fixture.Server.RestartAsync();

        var ternResult = await tern;
        var nodeResult = await node.ReadJsonAsync();
        var nodeDeltas = nodeResult["deltas"]!.AsArray().Select(d => d!.GetValue<int>()).ToArray();
        var nodeAmbiguous = nodeResult["ambiguous"]!.AsArray().Select(t => Transfer(t!.AsArray())).ToList();
        var report = $"Tern.Client: {ternResult}; Node: {nodeResult.ToJsonString()}";
        output.WriteLine(report);
        Assert.True(ternResult.Committed > 0 && nodeResult["committed"]!.GetValue<int>() > 0, report);
        Assert.Empty(ternResult.Unexpected);

        // Read through a transaction: a transfer whose unstaging the kill interrupted shows committed.
        var balances = new int[Accounts];
        await fixture.Cluster.Transactions.RunAsync(async ctx =>
        {
            for (var i = 0; i < Accounts; i++)
                balances[i] = (await ctx.GetAsync(Collection, $"acct-{i}")).ContentAs<JsonObject>()!["balance"]!.GetValue<int>();
        }, new TransactionOptions { Timeout = TimeSpan.FromSeconds(60) });

        Assert.Equal(Accounts * StartBalance, balances.Sum());
        var known = Enumerable.Range(0, Accounts).Select(i => StartBalance + ternResult.Deltas[i] + nodeDeltas[i]).ToArray();
        var ambiguous = ternResult.Ambiguous.Concat(nodeAmbiguous).ToList();
        Assert.True(ExplainedBySomeOf(balances, known, ambiguous),
            $"balances {string.Join(",", balances)} are not the committed transfers plus some of the {ambiguous.Count} in doubt; {report}");
    }

    private static async Task<TransferResult> TransferAsync(Cluster cluster, TimeSpan duration, Random random)
    {
        var collection = cluster.Bucket(CouchbaseFixture.BucketName).DefaultCollection();
        var result = new TransferResult(new int[Accounts], [], []);
        var options = new TransactionOptions { Timeout = TimeSpan.FromSeconds(10), DurabilityLevel = DurabilityLevel.PersistToMajority };
        var end = DateTime.UtcNow + duration;
        while (DateTime.UtcNow < end)
        {
            var from = random.Next(Accounts);
            var to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
            var amount = 1 + random.Next(10);
            try
            {
                await cluster.Transactions.RunAsync(async ctx =>
                {
                    var a = await ctx.GetAsync(collection, $"acct-{from}");
                    var b = await ctx.GetAsync(collection, $"acct-{to}");
                    await ctx.ReplaceAsync(a, new { balance = a.ContentAs<JsonObject>()!["balance"]!.GetValue<int>() - amount });
                    await ctx.ReplaceAsync(b, new { balance = b.ContentAs<JsonObject>()!["balance"]!.GetValue<int>() + amount });
                }, options);
                result.Committed++;
                result.Deltas[from] -= amount;
                result.Deltas[to] += amount;
            }
            catch (TransactionCommitAmbiguousException)
            {
                result.Ambiguous.Add((from, to, amount));
            }
            catch (TransactionFailedException error)
            {
                result.Failed++;
                var cause = $"{error.GetType().Name}: {error.InnerException?.GetType().Name}";
                result.Causes[cause] = result.Causes.GetValueOrDefault(cause) + 1;
            }
            catch (Exception error)
            {
                result.Unexpected.Add(error.ToString());
            }
        }
        return result;
    }

    /// <summary>Whether the balances are the known ones plus the effect of some subset of the transfers in doubt.</summary>
    private static bool ExplainedBySomeOf(int[] balances, int[] known, List<(int From, int To, int Amount)> ambiguous)
    {
        if (ambiguous.Count > 16)
            throw new Xunit.Sdk.XunitException($"{ambiguous.Count} transfers ended in doubt: too many to check");
        for (var subset = 0; subset < 1 << ambiguous.Count; subset++)
        {
            var expected = (int[])known.Clone();
            for (var i = 0; i < ambiguous.Count; i++)
            {
                if ((subset & (1 << i)) == 0)
                    continue;
                expected[ambiguous[i].From] -= ambiguous[i].Amount;
                expected[ambiguous[i].To] += ambiguous[i].Amount;
            }
            if (expected.SequenceEqual(balances))
                return true;
        }
        return false;
    }

    private static (int From, int To, int Amount) Transfer(JsonArray t) => (t[0]!.GetValue<int>(), t[1]!.GetValue<int>(), t[2]!.GetValue<int>());

    private sealed record TransferResult(int[] Deltas, List<(int From, int To, int Amount)> Ambiguous, List<string> Unexpected)
    {
        public int Committed { get; set; }

        public int Failed { get; set; }

        public Dictionary<string, int> Causes { get; } = [];

        public override string ToString() =>
            $"committed {Committed}, failed {Failed} ({string.Join(", ", Causes.Select(c => $"{c.Key} x{c.Value}"))}), " +
            $"ambiguous {Ambiguous.Count}, unexpected {Unexpected.Count}: {string.Join(" | ", Unexpected.Take(3))}";
    }

    /// <summary>The class's ternd, and a cluster whose transactions clean up lost attempts within 2 s.</summary>
    public sealed class Fixture : CouchbaseFixture
    {
        protected override ClusterOptions ClientOptions() => CleanupInteropTests.ShortWindowFixture.Options(base.ClientOptions());
    }
}
