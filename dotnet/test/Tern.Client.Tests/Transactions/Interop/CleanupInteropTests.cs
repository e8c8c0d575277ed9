using System.Text.Json.Nodes;
using Tern.Client.Tests.Support;
using Tern.Client.Transactions;

namespace Tern.Client.Tests.Transactions.Interop;

/// <summary>
/// A client killed (SIGKILL) in the middle of a transaction, and another SDK's lost-attempt cleanup
/// finishing its job, both ways: a Tern.Client process (Tern.TransactionDriver) cleaned up by the
/// official Node.js SDK, and a Node process (compat/lib) cleaned up by Tern.Client. Killed before
/// the commit point, its attempt is removed and its staged writes never show; killed after it,
/// every document ends with the committed content and without links.
/// </summary>
// Alone: a busy suite around them slows the watch on a commit more than the commit.
[Collection(nameof(Integration.FaultCollection))]
public class CleanupInteropTests(CleanupInteropTests.ShortWindowFixture fixture) : IClassFixture<CleanupInteropTests.ShortWindowFixture>
{
    // The documents a client killed mid-commit replaces: a few, since the kill no longer races their unstaging.
    private const int MidCommitDocuments = 20;

    private readonly string _run = Guid.NewGuid().ToString("N")[..8];

    private Collection Collection => fixture.Bucket.DefaultCollection();

    private string ConnectionString => fixture.Server.CouchbaseConnectionString;

    [Fact]
    public async Task NodeCleansUpATernClientKilledBeforeItsCommit()
    {
        var (replaceKey, insertKey) = ($"tern-lost-replace-{_run}", $"tern-lost-insert-{_run}");
        await Collection.UpsertAsync(replaceKey, new { v = 1 });
        await using (var doomed = ChildProcess.TransactionDriver("stage-and-die", ConnectionString, replaceKey, insertKey))
        {
            await doomed.ExpectLineAsync("staged");
            await doomed.WaitForExitAsync();
        }
        var entry = await EntryOf(replaceKey) ?? throw new Xunit.Sdk.XunitException($"{replaceKey}: the dead client left no links");
        Assert.Equal("PENDING", await StateOf(entry));
        Assert.Equal(1, await Collection.ValueOf(replaceKey));

        await using (var cleaner = ChildProcess.Node("tx-interop.mjs", "clean", ConnectionString, $"node-cleaner-{_run}"))
        {
            await cleaner.ExpectLineAsync("cleaning");
            await WaitUntilGone(entry, cleaner.Output);
            await cleaner.WriteLineAsync("stop");
        }
        await AssertAbandoned(replaceKey, insertKey);
    }

    [Fact]
    public async Task NodeFinishesTheCommitOfATernClientKilledInTheMiddleOfIt()
    {
        var (prefix, entry) = await KillMidCommit(
            prefix => ChildProcess.TransactionDriver("commit-and-die", ConnectionString, prefix, MidCommitDocuments.ToString()),
            stopsAtCommitPoint: true);
        await using (var cleaner = ChildProcess.Node("tx-interop.mjs", "clean", ConnectionString, $"node-mid-cleaner-{_run}"))
        {
            await cleaner.ExpectLineAsync("cleaning");
            await WaitUntilGone(entry, cleaner.Output);
            await cleaner.WriteLineAsync("stop");
        }
        await AssertCommitted(prefix, withInsert: true);
    }

    [Fact]
    public async Task TernClientFinishesTheCommitOfAnotherTernClientKilledInTheMiddleOfIt()
    {
        // Its staged insert too: a tombstone that cleanup turns into the document.
        var (prefix, entry) = await KillMidCommit(
            prefix => ChildProcess.TransactionDriver("commit-and-die", ConnectionString, prefix, MidCommitDocuments.ToString()),
            stopsAtCommitPoint: true);
        await using (await CleanerAsync())
            await WaitUntilGone(entry, "");
        await AssertCommitted(prefix, withInsert: true);
    }

    [Fact]
    public async Task TernClientCleansUpANodeClientKilledBeforeItsCommit()
    {
        var (replaceKey, insertKey) = ($"node-lost-replace-{_run}", $"node-lost-insert-{_run}");
        await Collection.UpsertAsync(replaceKey, new { v = 1 });
        await using (var doomed = ChildProcess.Node("stage-and-die.mjs", ConnectionString, replaceKey, insertKey))
        {
            await doomed.ExpectLineAsync("staged");
            await doomed.WaitForExitAsync();
        }
        var entry = await EntryOf(replaceKey) ?? throw new Xunit.Sdk.XunitException($"{replaceKey}: the dead client left no links");
        Assert.Equal("PENDING", await StateOf(entry));

        await using (await CleanerAsync())
            await WaitUntilGone(entry, "");
        await AssertAbandoned(replaceKey, insertKey);
    }

    [Fact]
    public async Task TernClientFinishesTheCommitOfANodeClientKilledInTheMiddleOfIt()
    {
        var (prefix, entry) = await KillMidCommit(
            prefix => ChildProcess.Node("commit-and-die.mjs", ConnectionString, prefix, MidCommitDocuments.ToString(), "10000"),
            stopsAtCommitPoint: false);
        await using (await CleanerAsync())
            await WaitUntilGone(entry, "");
        await AssertCommitted(prefix);
    }

    /// <summary>
    /// Runs a client that commits <see cref="MidCommitDocuments"/> replaces and kills it once its ATR
    /// entry says COMMITTED with documents still staged. The Tern.TransactionDriver stops there by
    /// itself (<paramref name="stopsAtCommitPoint"/>). The Node.js SDK has no such hook, so its
    /// child (compat/lib/commit-and-die.mjs) waits once every document is staged, and the test
    /// locks the first before it lets the commit go: the commit point passes, but the locked
    /// document cannot be unstaged, so it is still staged when the kill comes, however fast the
    /// commit is.
    /// </summary>
    private async Task<(string Prefix, (string Atr, string Attempt) Entry)> KillMidCommit(Func<string, ChildProcess> start,
        bool stopsAtCommitPoint)
    {
        var prefix = $"mid-commit-{_run}-";
        await Task.WhenAll(Enumerable.Range(0, MidCommitDocuments).Select(i => Collection.UpsertAsync($"{prefix}{i}", new { v = 1 }).AsTask()));
        await using var doomed = start(prefix);
        await doomed.ExpectLineAsync("staged");
        var entry = await EntryOf($"{prefix}0") ?? throw new Xunit.Sdk.XunitException($"{prefix}0 is not staged: {doomed.Output}");
        if (stopsAtCommitPoint)
        {
            await doomed.ExpectLineAsync("committed");
            await doomed.KillAsync();
        }
        else
        {
            Assert.Equal("PENDING", await StateOf(entry));
            using var locked = await Collection.GetAndLockAsync($"{prefix}0", TimeSpan.FromSeconds(30));
            await doomed.WriteLineAsync("commit");
            await Poll.UntilLongAsync(async () => await StateOf(entry) != "PENDING", "the ATR entry never left PENDING", intervalMs: 10);
            await doomed.KillAsync();
            await Collection.UnlockAsync($"{prefix}0", locked.Cas);
        }
        var stillStaged = 0;
        for (var i = 0; i < MidCommitDocuments; i++)
        {
            using var links = await Collection.LookupInAsync($"{prefix}{i}", specs => specs.Exists("txn", isXattr: true));
            stillStaged += links.Exists(0) ? 1 : 0;
        }
        var state = await StateOf(entry);
        Assert.True(state == "COMMITTED" && stillStaged > 0, $"entry {state ?? "gone"}, {stillStaged} documents staged: {doomed.Output}");
        return (prefix, entry);
    }

    /// <summary>What the lost attempt staged is abandoned: a new transaction writes over it.</summary>
    private async Task AssertAbandoned(string replaceKey, string insertKey)
    {
        Assert.Equal(1, await Collection.ValueOf(replaceKey));
        await fixture.Cluster.Transactions.RunAsync(async ctx =>
        {
            await ctx.ReplaceAsync(await ctx.GetAsync(Collection, replaceKey), new { v = 5 });
            await ctx.InsertAsync(Collection, insertKey, new { v = 6 });
        });
        Assert.Equal(5, await Collection.ValueOf(replaceKey));
        Assert.Equal(6, await Collection.ValueOf(insertKey));
    }

    private async Task AssertCommitted(string prefix, bool withInsert = false)
    {
        if (withInsert)
        {
            Assert.Equal(3, await Collection.ValueOf($"{prefix}inserted"));
            await Collection.AssertNoLinks($"{prefix}inserted");
        }
        for (var i = 0; i < MidCommitDocuments; i++)
        {
            Assert.Equal(2, await Collection.ValueOf($"{prefix}{i}"));
            await Collection.AssertNoLinks($"{prefix}{i}");
        }
    }

    /// <summary>A second Tern.Client whose lost-attempt cleanup watches the default collection with a 2 s window.</summary>
    private async Task<Cluster> CleanerAsync()
    {
        var cluster = await Cluster.ConnectAsync(ConnectionString, ShortWindowFixture.Options(CouchbaseFixture.Options()));
        _ = cluster.Transactions; // starts its cleanup
        return cluster;
    }

    /// <summary>
    /// The class's ternd, with a cluster whose transactions clean up within 2 s too: every live
    /// client takes its share of the ATRs, so one with the default 60 s window would slow the others.
    /// </summary>
    public sealed class ShortWindowFixture : CouchbaseFixture
    {
        public static ClusterOptions Options(ClusterOptions options) => options with
        {
            Transactions = new TransactionsConfig
            {
                CleanupWindow = TimeSpan.FromSeconds(2),
                CleanupCollections = [new TransactionKeyspace(BucketName)],
            },
        };

        protected override ClusterOptions ClientOptions() => Options(base.ClientOptions());
    }

    /// <summary>The ATR and attempt named by the document's staged links; null when it has none (any more).</summary>
    private async Task<(string Atr, string Attempt)?> EntryOf(string key)
    {
        using var links = await Collection.LookupInAsync(key, specs => specs.Get("txn", isXattr: true));
        if (!links.Exists(0))
            return null;
        var txn = links.ContentAs<JsonObject>(0)!;
        return (txn["atr"]!["id"]!.GetValue<string>(), txn["id"]!["atmpt"]!.GetValue<string>());
    }

    /// <summary>The entry's state; null when the entry (or its ATR) is gone.</summary>
    private async Task<string?> StateOf((string Atr, string Attempt) entry)
    {
        try
        {
            using var state = await Collection.LookupInAsync(entry.Atr, specs => specs.Get($"attempts.{entry.Attempt}.st", isXattr: true));
            return state.Exists(0) ? state.ContentAs<string>(0) : null;
        }
        catch (Exceptions.DocumentNotFoundException)
        {
            return null;
        }
    }

    private Task WaitUntilGone((string Atr, string Attempt) entry, string cleanerOutput) =>
        Poll.UntilLongAsync(async () => await StateOf(entry) is null, $"the lost attempt stayed in its ATR\n{cleanerOutput}");

}
