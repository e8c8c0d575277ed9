using Tern.Client.Exceptions;
using Tern.Client.Management;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Management.Integration;

/// <summary>cluster.Buckets against ternd's management port: every call, its error cases, and KV on what it creates.</summary>
[Trait("Server", "ternd")]
public sealed class BucketManagerTests(ManagementFixture fixture) : IClassFixture<ManagementFixture>
{
    private IBucketManager Buckets => fixture.Cluster.Buckets;

    private static string NewName() => $"b{Guid.NewGuid():N}"[..12];

    [Fact]
    public async Task AnEphemeralBucketIsCreatedReadServesKvIsFlushedUpdatedAndDropped()
    {
        var name = NewName();
        await Buckets.CreateBucketAsync(new BucketSettings
        {
            Name = name, BucketType = BucketType.Ephemeral, RamQuotaMB = 100, FlushEnabled = true,
            EvictionPolicy = EvictionPolicyType.NotRecentlyUsed,
        });

        var read = await Buckets.GetBucketAsync(name);
        Assert.Equal((name, BucketType.Ephemeral, 100L, true, 0), (read.Name, read.BucketType, read.RamQuotaMB, read.FlushEnabled, read.NumReplicas));
        Assert.Contains(name, (await Buckets.GetAllBucketsAsync()).Keys);

        // It serves KV at once, to a cluster object that was connected before it existed.
        var bucket = await fixture.Cluster.BucketAsync(name);
        await bucket.DefaultCollection().UpsertAsync("k", "before the flush");
        await Buckets.FlushBucketAsync(name);
        await Assert.ThrowsAsync<DocumentNotFoundException>(async () => (await bucket.DefaultCollection().GetAsync("k")).Dispose());

        read.FlushEnabled = false;
        read.RamQuotaMB = 128;
        read.MaxTtl = 60;
        await Buckets.UpdateBucketAsync(read);
        var updated = await Buckets.GetBucketAsync(name);
        Assert.Equal((false, 128L, 60), (updated.FlushEnabled, updated.RamQuotaMB, updated.MaxTtl));
        await Assert.ThrowsAsync<BucketNotFlushableException>(() => Buckets.FlushBucketAsync(name));

        await Buckets.DropBucketAsync(name);
        Assert.Equal(name, (await Assert.ThrowsAsync<BucketNotFoundException>(() => Buckets.GetBucketAsync(name))).BucketName);
        Assert.DoesNotContain(name, (await Buckets.GetAllBucketsAsync()).Keys);
    }

    [Fact]
    public async Task ACouchbaseBucketIsCreatedWithItsSettingsRefusesAnEvictionChangeAndIsDropped()
    {
        var name = NewName();
        await Buckets.CreateBucketAsync(new BucketSettings
        {
            Name = name, RamQuotaMB = 100, EvictionPolicy = EvictionPolicyType.FullEviction, MaxTtl = 3600,
            DurabilityMinimumLevel = DurabilityLevel.Majority,
        });
        var read = (await Buckets.GetAllBucketsAsync())[name];
        Assert.Equal((BucketType.Couchbase, EvictionPolicyType.FullEviction, 3600, DurabilityLevel.Majority, false),
            (read.BucketType, read.EvictionPolicy, read.MaxTtl, read.DurabilityMinimumLevel, read.FlushEnabled));

        // What a live bucket cannot change is refused with the server's reason.
        read.EvictionPolicy = EvictionPolicyType.ValueOnly;
        var refused = await Assert.ThrowsAsync<ManagementException>(() => Buckets.UpdateBucketAsync(read));
        Assert.Equal(400, refused.HttpStatus);
        Assert.Contains("evictionPolicy", refused.ServerMessage);
        await Buckets.DropBucketAsync(name);
    }

    [Fact]
    public async Task EachRefusalIsTheOfficialSdksException()
    {
        Assert.Equal("default", (await Assert.ThrowsAsync<BucketExistsException>(() =>
            Buckets.CreateBucketAsync(new BucketSettings { Name = "default", RamQuotaMB = 100 }))).BucketName);
        var unflushable = NewName();
        await Buckets.CreateBucketAsync(new BucketSettings { Name = unflushable, BucketType = BucketType.Ephemeral, RamQuotaMB = 100 });
        Assert.Equal(unflushable, (await Assert.ThrowsAsync<BucketNotFlushableException>(() => Buckets.FlushBucketAsync(unflushable))).BucketName);
        await Buckets.DropBucketAsync(unflushable);
        await Assert.ThrowsAsync<BucketNotFoundException>(() => Buckets.GetBucketAsync("nosuch"));
        await Assert.ThrowsAsync<BucketNotFoundException>(() => Buckets.DropBucketAsync("nosuch"));
        await Assert.ThrowsAsync<BucketNotFoundException>(() => Buckets.FlushBucketAsync("nosuch"));
        var replicas = await Assert.ThrowsAsync<ManagementException>(() =>
            Buckets.CreateBucketAsync(new BucketSettings { Name = NewName(), RamQuotaMB = 100, NumReplicas = 1 }));
        Assert.Equal(400, replicas.HttpStatus);
        Assert.Contains("replica", replicas.ServerMessage, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task AUserWhoMayOnlyReadSeesTheirBucketButMayNotCreateOne()
    {
        await using var reader = await Cluster.ConnectAsync(fixture.ConnectionString,
            CouchbaseFixture.Options() with { UserName = ManagementFixture.ReaderName, Password = ManagementFixture.ReaderPassword });
        await reader.BucketAsync("default");

        Assert.Equal(BucketType.Couchbase, (await reader.Buckets.GetBucketAsync("default")).BucketType);
        var refused = await Assert.ThrowsAsync<ManagementException>(() =>
            reader.Buckets.CreateBucketAsync(new BucketSettings { Name = NewName(), RamQuotaMB = 100 }));
        Assert.Equal(403, refused.HttpStatus);
        Assert.Contains("cluster.buckets!create", refused.ServerMessage);
    }

    [Fact]
    public async Task AWrongPasswordIsAnAuthenticationFailureOnTheManagementPortToo()
    {
        // Connected with the right password, then asked with a wrong one: only the HTTP port sees it.
        await using var cluster = await Cluster.ConnectAsync(fixture.ConnectionString, CouchbaseFixture.Options());
        await cluster.BucketAsync("default");
        var endpoint = Assert.Single(cluster.Topologies.Single().Map!.Management);
        using var wrong = new ManagementClient(CouchbaseFixture.Options("not-the-password"),
            _ => Task.FromResult(new ManagementEndpointFinder.Found([endpoint], "")));

        await Assert.ThrowsAsync<AuthenticationFailureException>(() => new BucketManager(wrong).GetAllBucketsAsync());
    }
}
