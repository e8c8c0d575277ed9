using System.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>dev.toml's ternd (a persistent bucket) under hold_fsync.</summary>
public sealed class HeldDiskCouchbaseFixture : CouchbaseFixture
{
    protected override Task<ServerProcess> StartServerAsync() =>
        ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath, holdableFsync: true);
}

/// <summary>
/// The durability levels against a ternd that cannot persist: each test holds its disk (no fsync
/// returns) from start to end. MajorityAndPersistToActive and PersistToMajority (one node: the
/// active is the majority) must then not succeed: at their timeout the server answers
/// SyncWriteAmbiguous, which the SDK throws as <see cref="DurabilityAmbiguousException"/>, and
/// with a long timeout they wait for the disk, answered after writes made later. Majority (no
/// replicas: applied in memory) and a write without durability answer without the disk. A server
/// or an SDK that dropped the durability frame would answer every write at once, with Success.
/// </summary>
[Trait("Server", "ternd")]
public sealed class CouchbaseDurabilityWaitTests : IClassFixture<HeldDiskCouchbaseFixture>, IDisposable
{
    // The server answers at 90% of it (FramingExtras.DurabilityTimeout), 600 ms before the client
    // would give up: how late its answer may be on a busy machine. Short, so that each test takes seconds.
    private static readonly TimeSpan ShortTimeout = TimeSpan.FromSeconds(6);

    // Long: a write with this timeout is answered by the disk's release, never by its deadline.
    private static readonly TimeSpan LongTimeout = TimeSpan.FromSeconds(60);

    // Generous: only turns a count that never comes into a failure.
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private readonly HeldDiskCouchbaseFixture _fixture;

    public CouchbaseDurabilityWaitTests(HeldDiskCouchbaseFixture fixture)
    {
        _fixture = fixture;
        _fixture.Server.HoldFsync();
    }

    private Collection Target => _fixture.Bucket.DefaultCollection();

    private static string NewKey(string prefix) => $"{prefix}-{Guid.NewGuid():N}";

    public void Dispose() => _fixture.Server.ReleaseFsync();

    [Theory]
    [InlineData(DurabilityLevel.PersistToMajority)]
    [InlineData(DurabilityLevel.MajorityAndPersistToActive)]
    public async Task APersistingLevelIsAmbiguousAtItsTimeoutWhileTheDiskIsHeld(DurabilityLevel level)
    {
        var key = NewKey($"held-{level}");

        var error = await Record.ExceptionAsync(() =>
            Target.UpsertAsync(key, "v", new UpsertOptions { Durability = level, Timeout = ShortTimeout }).AsTask());

        Assert.True(error is DurabilityAmbiguousException, $"{level} with the disk held: {error?.ToString() ?? "succeeded"}");
        Assert.Equal(key, Assert.IsType<DurabilityAmbiguousException>(error).Key);
    }

    [Fact]
    public async Task MajorityIsAnsweredWithoutTheDisk()
    {
        var key = NewKey("held-majority");

        var stored = await Target.UpsertAsync(key, "v", new UpsertOptions { Durability = DurabilityLevel.Majority });

        using var read = await Target.GetAsync(key);
        Assert.Equal(stored.Cas, read.Cas);
    }

    [Fact]
    public async Task AWriteWithoutDurabilityIsAnsweredWithoutTheDisk()
    {
        var key = NewKey("held-plain");

        var stored = await Target.UpsertAsync(key, "v");

        using var read = await Target.GetAsync(key);
        Assert.Equal(stored.Cas, read.Cas);
    }

    [Fact]
    public async Task APersistToMajorityWriteWaitsForTheDiskWhileLaterOperationsAreAnswered()
    {
        var (durable, majority, plain) = (NewKey("held-wait"), NewKey("held-later-majority"), NewKey("held-later-plain"));
        // Other tests' ambiguous writes wait for the disk too (until persisted): let them go first,
        // so that the server's count of waiting writes is this test's alone.
        _fixture.Server.ReleaseFsync();
        await WaitForWaitingWritesAsync(0);
        _fixture.Server.HoldFsync();

        var waiting = Target.UpsertAsync(durable, "persisted",
            new UpsertOptions { Durability = DurabilityLevel.PersistToMajority, Timeout = LongTimeout }).AsTask();
        // The server has the write, and holds its answer.
        await WaitForWaitingWritesAsync(1, waiting);
        // Later operations, over a connection of their own: the SDK does not negotiate UnorderedExecution,
        // so the server runs nothing after the waiting write on its connection until it is answered.
        await using var later = await Cluster.ConnectAsync(_fixture.ConnectionString, CouchbaseFixture.Options());
        var laterBucket = later.Bucket(CouchbaseFixture.BucketName);
        await laterBucket.WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout);
        var collection = laterBucket.DefaultCollection();
        await collection.UpsertAsync(majority, "m", new UpsertOptions { Durability = DurabilityLevel.Majority });
        await collection.UpsertAsync(plain, "p");
        using (var read = await collection.GetAsync(plain))
            Assert.Equal("p", read.ContentAs<string>());

        Assert.False(waiting.IsCompleted, $"PersistToMajority was answered with the disk held: {waiting.Status} {waiting.Exception}");

        _fixture.Server.ReleaseFsync();
        var stored = await waiting;
        using var persisted = await Target.GetAsync(durable);
        Assert.Equal((stored.Cas, "persisted"), (persisted.Cas, persisted.ContentAs<string>()));
    }

    /// <summary>
    /// Until ternd counts <paramref name="count"/> durable writes waiting for the disk
    /// (ep_durability_pending); fails at once if <paramref name="write"/>, which should be one of
    /// them, is answered meanwhile.
    /// </summary>
    private async Task WaitForWaitingWritesAsync(int count, Task? write = null)
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            Assert.False(write is { IsCompleted: true }, $"the write was answered with the disk held: {write?.Status} {write?.Exception}");
            var pending = (await TerndCluster.StatsAsync(_fixture.Server.Port))["ep_durability_pending"];
            if (pending == count.ToString())
                return;
            Assert.True(waited.Elapsed < Patience, $"ternd counts {pending} durable writes waiting, not {count}, after {waited.Elapsed}");
            // Each look starts a node process (cluster-admin.mjs stats): not too often on two cores.
            await Task.Delay(200);
        }
    }
}
