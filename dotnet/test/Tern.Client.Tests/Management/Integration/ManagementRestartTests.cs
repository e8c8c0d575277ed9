using Tern.Client.Management;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Management.Integration;

/// <summary>What the managers create survives a kill -9 of ternd: its state file is written before the answer.</summary>
[Trait("Server", "ternd")]
public sealed class ManagementRestartTests
{
    [Fact]
    public async Task ABucketAndACollectionMadeOverHttpAreThereAfterAKillAndFlushEmptiesThem()
    {
        await using var server = await ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath);
        var name = $"r{Guid.NewGuid():N}"[..12];
        await using (var cluster = await Cluster.ConnectAsync(server.CouchbaseConnectionString, CouchbaseFixture.Options()))
        {
            await cluster.BucketAsync(CouchbaseFixture.BucketName);
            await cluster.Buckets.CreateBucketAsync(new BucketSettings { Name = name, RamQuotaMB = 100, FlushEnabled = true });
            var bucket = await cluster.BucketAsync(name);
            await bucket.Collections.CreateScopeAsync("app");
            await bucket.Collections.CreateCollectionAsync("app", "events", new CreateCollectionSettings(TimeSpan.FromMinutes(5)));
            await bucket.Scope("app").Collection("events").UpsertAsync("k", "v", new UpsertOptions { Durability = DurabilityLevel.PersistToMajority });
        }

        server.Kill();
        await server.RestartAsync();

        await using var after = await Cluster.ConnectAsync(server.CouchbaseConnectionString, CouchbaseFixture.Options());
        var reopened = await after.BucketAsync(name);
        var settings = await after.Buckets.GetBucketAsync(name);
        Assert.Equal((BucketType.Couchbase, 100L, true), (settings.BucketType, settings.RamQuotaMB, settings.FlushEnabled));
        var app = Assert.Single(await reopened.Collections.GetAllScopesAsync(), s => s.Name == "app");
        Assert.Equal(TimeSpan.FromMinutes(5), Assert.Single(app.Collections).MaxExpiry);
        var events = reopened.Scope("app").Collection("events");
        using (var read = await events.GetAsync("k"))
            Assert.Equal("v", read.ContentAsString());

        // Flush empties a couchbase bucket, between two test cases as the SDKs' users do.
        await after.Buckets.FlushBucketAsync(name);
        Assert.False((await events.ExistsAsync("k")).Exists);
        await events.UpsertAsync("k2", "after the flush");
        Assert.True((await events.ExistsAsync("k2")).Exists);
    }
}
