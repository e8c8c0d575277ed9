using Tern.Client.Exceptions;
using Tern.Client.Management;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Management.Integration;

/// <summary>bucket.Collections against ternd: every call and its error cases, and collections usable at once by other clients.</summary>
[Trait("Server", "ternd")]
public sealed class CollectionManagerTests(ManagementFixture fixture) : IClassFixture<ManagementFixture>
{
    private ICollectionManager Collections => fixture.Bucket.Collections;

    private static string NewName(string prefix) => $"{prefix}{Guid.NewGuid():N}"[..12];

    [Fact]
    public async Task ScopesAndCollectionsAreCreatedListedAndDroppedWithTheirErrors()
    {
        var scope = NewName("s");
        await Collections.CreateScopeAsync(scope);
        Assert.Equal(scope, (await Assert.ThrowsAsync<ScopeExistsException>(() => Collections.CreateScopeAsync(scope))).ScopeName);

        await Collections.CreateCollectionAsync(scope, "c", new CreateCollectionSettings(TimeSpan.FromHours(1)));
        await Collections.CreateCollectionAsync(scope, "d", CreateCollectionSettings.Default);
        var exists = await Assert.ThrowsAsync<CollectionExistsException>(() =>
            Collections.CreateCollectionAsync(scope, "c", CreateCollectionSettings.Default));
        Assert.Equal((scope, "c"), (exists.ScopeName, exists.CollectionName));

        var listed = Assert.Single(await Collections.GetAllScopesAsync(), s => s.Name == scope);
        Assert.Equal(["c", "d"], listed.Collections.Select(c => c.Name).Order());
        Assert.Equal(TimeSpan.FromHours(1), listed.Collections.Single(c => c.Name == "c").MaxExpiry);
        Assert.Contains(await Collections.GetAllScopesAsync(), s => s.Name == "app" && s.Collections.Any(c => c.Name == "users"));

        await Collections.DropCollectionAsync(scope, "c");
        await Assert.ThrowsAsync<CollectionNotFoundException>(() => Collections.DropCollectionAsync(scope, "c"));
        await Assert.ThrowsAsync<ScopeNotFoundException>(() => Collections.CreateCollectionAsync(NewName("x"), "c", CreateCollectionSettings.Default));
        await Collections.DropScopeAsync(scope);
        await Assert.ThrowsAsync<ScopeNotFoundException>(() => Collections.DropScopeAsync(scope));
        Assert.DoesNotContain(await Collections.GetAllScopesAsync(), s => s.Name == scope);
        await Assert.ThrowsAsync<BucketNotFoundException>(() => fixture.Cluster.Bucket("nosuch").Collections.GetAllScopesAsync());
    }

    [Fact]
    public async Task ACollectionMadeByOneClientIsUsableByAnotherAtOnceAndSoIsOneMadeAgain()
    {
        var scope = NewName("live");
        await using var other = await Cluster.ConnectAsync(fixture.ConnectionString, CouchbaseFixture.Options());
        var theirs = (await other.BucketAsync(CouchbaseFixture.BucketName)).Scope(scope).Collection("c");
        await Assert.ThrowsAsync<CollectionNotFoundException>(() => theirs.UpsertAsync("k", "too early").AsTask());

        await Collections.CreateScopeAsync(scope);
        await Collections.CreateCollectionAsync(scope, "c", CreateCollectionSettings.Default);
        await theirs.UpsertAsync("k", "first");
        using (var mine = await fixture.Bucket.Scope(scope).Collection("c").GetAsync("k"))
            Assert.Equal("first", mine.ContentAsString());

        // Dropped and made again: a new, empty collection with a new id. The other client still has
        // the old id; the server answers UnknownCollection, and the SDK looks the id up and resends.
        await Collections.DropCollectionAsync(scope, "c");
        await Collections.CreateCollectionAsync(scope, "c", CreateCollectionSettings.Default);
        await theirs.UpsertAsync("k2", "second");
        Assert.False((await theirs.ExistsAsync("k")).Exists);
        using (var again = await fixture.Bucket.Scope(scope).Collection("c").GetAsync("k2"))
            Assert.Equal("second", again.ContentAsString());
        await Collections.DropScopeAsync(scope);
    }
}

/// <summary>A ternd started with --mgmt-port none: its map lists no management service.</summary>
[Trait("Server", "ternd")]
public sealed class NoManagementPortTests
{
    [Fact]
    public async Task TheManagersSayTheServiceIsNotAvailableAndWhy()
    {
        await using var server = await ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath, managementPort: "none");
        await using var cluster = await Cluster.ConnectAsync(server.CouchbaseConnectionString, CouchbaseFixture.Options());
        var bucket = await cluster.BucketAsync(CouchbaseFixture.BucketName);

        var buckets = await Assert.ThrowsAsync<ServiceNotAvailableException>(() => cluster.Buckets.GetAllBucketsAsync());
        Assert.Contains("lists no node with the \"mgmt\" service", buckets.Message);
        await Assert.ThrowsAsync<ServiceNotAvailableException>(() => bucket.Collections.CreateScopeAsync("s"));
        Assert.Null(server.ManagementPort);
    }
}
