using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text.RegularExpressions;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;
using Xunit.Abstractions;
using TimeoutException = Tern.Client.Exceptions.TimeoutException;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>What the load writes: unique per write, so a read shows exactly which write it returns.</summary>
public sealed record Written(string Key, long Sequence, int Phase);

/// <summary>
/// Three ternd nodes from scripts/cluster.sh; a third of the vbuckets moves to another node,
/// twice, while eight loops keep reading (90%) and writing (10%) 2,000 keys. ternd moves no
/// data, so a read may miss a key last written before its vbucket moved; nothing may fail, a
/// read that finds a document must find the last value written to it, a read may not miss a key
/// written while its vbucket stayed where it is (during the moves too), and every write made
/// after the last move must read back.
/// </summary>
[Trait("Server", "ternd-cluster")]
public sealed class CouchbaseVBucketMoveTests(ITestOutputHelper output)
{
    private const int Nodes = 3;
    private const int Loops = 8;
    private const int KeyCount = 2000;

    // Generous bounds that only turn a stuck run into a failure.
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task VBucketsMoveTwiceUnderLoadWithoutAFailedOperation()
    {
        var total = Stopwatch.StartNew();
        await using var nodes = await TerndCluster.StartAsync(Nodes);
        using var log = new CapturedLog();
        await using var cluster = await Cluster.ConnectAsync(nodes.ConnectionString,
            CouchbaseFixture.Options() with { LoggerFactory = log.Factory });
        var bucket = cluster.Bucket(CouchbaseFixture.BucketName);
        await bucket.WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout);
        var run = Guid.NewGuid().ToString("N")[..8];
        var load = new Load(bucket.DefaultCollection(), Enumerable.Range(0, KeyCount).Select(i => $"load-{run}-{i}").ToArray(), Loops);

        long firstRev, secondRev;
        load.Start();
        try
        {
            await load.WaitForAsync(() => load.Operations >= 10_000, "10,000 operations before the first move", Patience);
            firstRev = await load.MoveAsync(nodes, 0, 340, to: 1);
            load.Phase = 1;
            await WaitForMapAsync(log, firstRev, load);
            var atFirst = load.Operations;
            await load.WaitForAsync(() => load.Operations >= atFirst + 10_000, "10,000 operations between the moves", Patience);

            secondRev = await load.MoveAsync(nodes, 341, 681, to: 2);
            load.Phase = 2;
            var secondMovedAt = Stopwatch.StartNew();
            var atSecond = load.Operations;
            await WaitForMapAsync(log, secondRev, load);
            // Run on for a while after the last move, past a config poll, so that late routing mistakes show.
            await load.WaitForAsync(() => load.Operations >= atSecond + 3000 && load.WritesIn(2) >= 300 &&
                secondMovedAt.Elapsed >= TimeSpan.FromSeconds(3), "3,000 operations and 300 writes after the second move", Patience);
        }
        finally
        {
            await load.StopAsync();
        }

        Assert.True(load.Failures.IsEmpty,
            $"{load.Failures.Count} of {load.Operations} operations failed; first: {string.Join(" | ", load.Failures.Take(5))}");
        Assert.True(load.StaleReads.IsEmpty,
            $"{load.StaleReads.Count} reads returned a value other than the key's last write: {string.Join(" | ", load.StaleReads.Take(5))}");
        Assert.True(load.LostReads.IsEmpty,
            $"{load.LostReads.Count} reads found no document where one was written: {string.Join(" | ", load.LostReads.Take(5))}");
        // Most reads are of keys written where they still are: the check above is not vacuous.
        Assert.True(load.ReadsThatMustFind >= 2000, $"only {load.ReadsThatMustFind} reads were of keys that must be found");

        // Every write made after the last move reads back, from the new owner.
        var later = load.LastWrites.Values.Where(w => w.Phase == 2).ToArray();
        Assert.True(later.Count(w => VBuckets.Of(w.Key) <= 681) >= 50,
            $"only {later.Count(w => VBuckets.Of(w.Key) <= 681)} later writes landed in moved vbuckets");
        var readBack = await Task.WhenAll(later.Select(async written =>
        {
            try
            {
                using var read = await bucket.DefaultCollection().GetAsync(written.Key);
                var content = read.ContentAs<Written>();
                return content == written ? null : $"{written.Key}: read {content}, wrote {written}";
            }
            catch (TernException e)
            {
                return $"{written.Key} (vbucket {VBuckets.Of(written.Key)}): {e.Message}";
            }
        }));
        var wrong = readBack.Where(r => r is not null).ToArray();
        Assert.True(wrong.Length == 0, $"{wrong.Length} of {later.Length} writes after the last move do not read back: {string.Join(" | ", wrong.Take(5))}");

        // The SDK holds the last map: vbuckets 0-340 on node 1, 341-681 on node 2, the rest where cluster.sh put them.
        var map = Assert.Single(cluster.Topologies).Map!;
        Assert.Equal(secondRev, map.Revision);
        for (var vbucket = 0; vbucket < VBuckets.Count; vbucket++)
        {
            var expected = vbucket <= 340 ? 1 : vbucket <= 681 ? 2 : VBuckets.InitialOwner(vbucket, Nodes);
            Assert.True(map.Nodes[map.ActiveNodeOf(vbucket)].KvPort == nodes.Ports[expected],
                $"vbucket {vbucket} is on {map.Nodes[map.ActiveNodeOf(vbucket)].Endpoint}, not node {expected} ({nodes.Endpoint(expected)})");
        }

        output.WriteLine($"{load.Operations} operations, {load.WritesIn(0)}/{load.WritesIn(1)}/{load.WritesIn(2)} writes per phase, " +
                         $"{load.ReadsThatMustFind} reads of keys that must be found, " +
                         $"{later.Length} keys last written after the second move; {total.Elapsed} in all");
        foreach (var line in log.Messages("cluster map"))
            output.WriteLine(line);
        output.WriteLine($"{log.Messages("not_my_vbucket").Count} operations were retried after NotMyVbucket");

        // The log tells the story: both map updates, at Information level, with epoch and rev.
        var updates = log.Messages("cluster map");
        Assert.Contains(updates, m => MapLine(firstRev).IsMatch(m));
        Assert.Contains(updates, m => MapLine(secondRev).IsMatch(m));
        Assert.Contains(log.Collector.GetSnapshot(), r => r.Level == Microsoft.Extensions.Logging.LogLevel.Information && MapLine(secondRev).IsMatch(r.Message));
        Assert.True(total.Elapsed < TimeSpan.FromMinutes(5), $"took {total.Elapsed}");
    }

    /// <summary>"cluster map 1/3 -> 1/4 from ...": the SDK installed the map of <paramref name="rev"/>.</summary>
    private static Regex MapLine(long rev) => new($@"cluster map \d+/\d+ -> \d+/{rev}\b");

    private static async Task WaitForMapAsync(CapturedLog log, long rev, Load load)
    {
        var waited = Stopwatch.StartNew();
        while (!log.Messages("cluster map").Any(m => MapLine(rev).IsMatch(m)))
        {
            Assert.True(waited.Elapsed < Patience,
                $"the SDK logged no map of rev {rev} within {waited.Elapsed}: {string.Join(" | ", log.Messages("cluster map"))}; " +
                $"failures so far: {string.Join(" | ", load.Failures.Take(3))}");
            await Task.Delay(20);
        }
    }

    /// <summary>
    /// Eight loops over disjoint shares of the keys (so each key has one writer, and its last write
    /// is known): 90% TryGet, 10% Upsert of a unique value.
    /// </summary>
    private sealed class Load(Collection collection, string[] keys, int loops)
    {
        private readonly CancellationTokenSource _stop = new();
        private readonly int[] _writesPerPhase = new int[3];
        // Per vbucket: odd while a move of it is under way, incremented again once it is done.
        private readonly int[] _moves = new int[VBuckets.Count];
        // Each key's _moves count when its last write began; absent if that write began mid-move.
        private readonly ConcurrentDictionary<string, int> _writtenAtMove = new();
        private Task[] _loops = [];
        private long _operations;
        private long _sequence;
        private long _readsThatMustFind;
        private volatile int _phase;

        public ConcurrentQueue<string> Failures { get; } = new();

        public ConcurrentQueue<string> StaleReads { get; } = new();

        /// <summary>Reads that found nothing although the key's last write went to its vbucket's current owner.</summary>
        public ConcurrentQueue<string> LostReads { get; } = new();

        /// <summary>Each key's last successful write.</summary>
        public ConcurrentDictionary<string, Written> LastWrites { get; } = new();

        public long Operations => Interlocked.Read(ref _operations);

        public long ReadsThatMustFind => Interlocked.Read(ref _readsThatMustFind);

        /// <summary>
        /// Moves vbuckets <paramref name="first"/>-<paramref name="last"/> to node <paramref name="to"/>,
        /// marking them as moving meanwhile: a key written to the old owner may then be missing.
        /// </summary>
        public async Task<long> MoveAsync(TerndCluster nodes, int first, int last, int to)
        {
            for (var vbucket = first; vbucket <= last; vbucket++)
                Interlocked.Increment(ref _moves[vbucket]);
            var rev = await nodes.MoveAsync($"{first}-{last}", to);
            for (var vbucket = first; vbucket <= last; vbucket++)
                Interlocked.Increment(ref _moves[vbucket]);
            return rev;
        }

        /// <summary>0 before the first move, 1 after it, 2 after the second: writes begun in a phase carry it.</summary>
        public int Phase
        {
            get => _phase;
            set => _phase = value;
        }

        public int WritesIn(int phase) => Volatile.Read(ref _writesPerPhase[phase]);

        public void Start() =>
            _loops = Enumerable.Range(0, loops).Select(i => Task.Run(() => RunAsync(i))).ToArray();

        public async Task StopAsync()
        {
            _stop.Cancel();
            await Task.WhenAll(_loops);
        }

        public async Task WaitForAsync(Func<bool> condition, string what, TimeSpan patience)
        {
            var waited = Stopwatch.StartNew();
            while (!condition())
            {
                Assert.True(waited.Elapsed < patience,
                    $"no {what} within {waited.Elapsed} ({Operations} operations, {Failures.Count} failed: {string.Join(" | ", Failures.Take(3))})");
                await Task.Delay(20);
            }
        }

        private async Task RunAsync(int loop)
        {
            var mine = keys.Where((_, i) => i % loops == loop).ToArray();
            var random = new Random(loop);
            while (!_stop.IsCancellationRequested)
            {
                var key = mine[random.Next(mine.Length)];
                var vbucket = VBuckets.Of(key);
                var phase = Phase;
                var movesAtStart = Volatile.Read(ref _moves[vbucket]);
                try
                {
                    if (random.Next(10) == 0)
                    {
                        var value = new Written(key, Interlocked.Increment(ref _sequence), phase);
                        _writtenAtMove.TryRemove(key, out _);
                        await collection.UpsertAsync(key, value);
                        LastWrites[key] = value;
                        if (movesAtStart % 2 == 0)
                            _writtenAtMove[key] = movesAtStart;
                        Interlocked.Increment(ref _writesPerPhase[phase]);
                    }
                    else
                    {
                        using var read = await collection.TryGetAsync(key);
                        if (read.Found)
                        {
                            var content = read.ContentAs<Written>();
                            if (!LastWrites.TryGetValue(key, out var last) || content != last)
                                StaleReads.Enqueue($"{key} (vbucket {vbucket}, phase {phase}): read {content}, last wrote {last}");
                        }
                        // The key's vbucket has not moved since its last write began, nor during this read:
                        // that write is on the node that answered, which must find it.
                        if (_writtenAtMove.TryGetValue(key, out var writtenAt) && writtenAt == movesAtStart &&
                            Volatile.Read(ref _moves[vbucket]) == movesAtStart)
                        {
                            Interlocked.Increment(ref _readsThatMustFind);
                            if (!read.Found)
                                LostReads.Enqueue($"{key} (vbucket {vbucket}, phase {phase}): not found, last wrote {LastWrites.GetValueOrDefault(key)}");
                        }
                    }
                }
                catch (Exception e)
                {
                    Failures.Enqueue($"{key} (vbucket {vbucket}, phase {phase}): {e.GetType().Name}: {e.Message}");
                }
                Interlocked.Increment(ref _operations);
            }
        }
    }
}

/// <summary>
/// One of three nodes is paused (SIGSTOP): operations on its keys time out with a message that
/// says where and why, within their timeout and a margin; the other nodes' keys keep working;
/// after SIGCONT every key works again.
/// </summary>
[Trait("Server", "ternd-cluster")]
public sealed class CouchbaseNodePauseTests(ITestOutputHelper output)
{
    private const int Nodes = 3;
    private const int Paused = 1;
    private const int KeysPerNode = 20;
    private static readonly TimeSpan KvTimeout = TimeSpan.FromSeconds(1.5);

    // Against real processes on a busy machine only an upper bound holds; the exact timing is ConnectionBehaviourTests'.
    private static readonly TimeSpan Margin = TimeSpan.FromSeconds(10);

    // Healthy nodes' operations get a generous timeout of their own: they must succeed, however slow the machine.
    private static readonly TimeSpan HealthyTimeout = TimeSpan.FromSeconds(10);

    private static readonly TimeSpan RecoveryBound = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task APausedNodesKeysTimeOutClearlyWhileTheOthersWorkAndAllRecoverOnResume()
    {
        await using var nodes = await TerndCluster.StartAsync(Nodes);
        var run = Guid.NewGuid().ToString("N")[..8];
        var keysByNode = Enumerable.Range(0, Nodes)
            .Select(n => VBuckets.KeysWhere($"pause-{run}-n{n}", vb => VBuckets.InitialOwner(vb, Nodes) == n).Take(KeysPerNode).ToArray())
            .ToArray();
        // The test's own vbucket hash agrees with the scripts' (which installed the map).
        var scripted = await TerndCluster.ScriptVBucketsAsync(keysByNode.SelectMany(k => k.Take(3)));
        Assert.All(scripted, pair => Assert.Equal(pair.Value, VBuckets.Of(pair.Key)));

        await using var cluster = await Cluster.ConnectAsync(nodes.ConnectionString, CouchbaseFixture.Options() with
        {
            KvTimeout = KvTimeout,
            ReconnectBackoffMax = TimeSpan.FromMilliseconds(500),
        });
        var bucket = cluster.Bucket(CouchbaseFixture.BucketName);
        await bucket.WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout);
        var collection = bucket.DefaultCollection();
        // Every node is connected and every key has a value before the pause.
        await Task.WhenAll(keysByNode.SelectMany(k => k).Select(key =>
            collection.UpsertAsync(key, key, new UpsertOptions { Timeout = HealthyTimeout }).AsTask()));
        var pausedEndpoint = nodes.Endpoint(Paused);
        var healthy = keysByNode.Where((_, n) => n != Paused).SelectMany(k => k).ToArray();

        nodes.Pause(Paused);
        try
        {
            // Twice: first while the paused node's connection still looks alive (requests are sent and
            // unanswered), then again once the client may have given up on it.
            for (var round = 0; round < 2; round++)
            {
                var failing = Task.WhenAll(keysByNode[Paused].Select((key, i) => TimeAsync(key, i % 2 == 0
                    ? async () => (await collection.GetAsync(key)).Dispose()
                    : async () => await collection.UpsertAsync(key, $"round {round}"))));
                var working = Task.WhenAll(healthy.Select(key => TimeAsync(key, async () =>
                {
                    await collection.UpsertAsync(key, $"{key} round {round}", new UpsertOptions { Timeout = HealthyTimeout });
                    using var read = await collection.GetAsync(key, new GetOptions { Timeout = HealthyTimeout });
                    Assert.Equal($"{key} round {round}", read.ContentAsString());
                })));

                var failed = await failing;
                output.WriteLine($"round {round}, slowest failure after {failed.Max(f => f.Elapsed)}: {failed[0].Error?.Message} | {failed[1].Error?.Message}");
                foreach (var (key, error, elapsed) in failed)
                {
                    Assert.True(error is TimeoutException, $"round {round}: {key} on the paused node: {error?.ToString() ?? "succeeded"}");
                    Assert.True(elapsed < KvTimeout + Margin, $"round {round}: {key} took {elapsed} to fail");
                    var message = error!.Message;
                    Assert.True(message.Contains(pausedEndpoint) || message.Contains("no response") || message.Contains("no connection"),
                        $"round {round}: the timeout of {key} names neither {pausedEndpoint} nor what went wrong: {message}");
                }
                foreach (var (key, error, _) in await working)
                    Assert.True(error is null, $"round {round}: {key} on a healthy node failed: {error}");
            }
        }
        finally
        {
            nodes.Resume(Paused);
        }

        // Every key works again, the paused node's included, within a generous bound.
        var waited = Stopwatch.StartNew();
        var all = keysByNode.SelectMany(k => k).ToArray();
        while (true)
        {
            var outcomes = await Task.WhenAll(all.Select(key => TimeAsync(key, async () =>
            {
                await collection.UpsertAsync(key, $"{key} resumed");
                using var read = await collection.GetAsync(key);
                Assert.Equal($"{key} resumed", read.ContentAsString());
            })));
            var failed = outcomes.Where(o => o.Error is not null).ToArray();
            if (failed.Length == 0)
            {
                output.WriteLine($"every key works again {waited.Elapsed} after SIGCONT");
                break;
            }
            Assert.True(waited.Elapsed < RecoveryBound,
                $"{failed.Length} keys still fail {waited.Elapsed} after SIGCONT; first: {failed[0].Key}: {failed[0].Error}");
            await Task.Delay(250);
        }
    }

    private static async Task<(string Key, Exception? Error, TimeSpan Elapsed)> TimeAsync(string key, Func<Task> operation)
    {
        var watch = Stopwatch.StartNew();
        var error = await Record.ExceptionAsync(operation);
        return (key, error, watch.Elapsed);
    }
}
