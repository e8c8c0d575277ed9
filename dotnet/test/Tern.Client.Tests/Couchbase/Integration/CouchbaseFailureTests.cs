using System.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>
/// What a user meets when something is wrong (password, bucket, collection): a typed error that
/// names what is missing, in bounded time, never a hang. One ternd from dev.toml for the class.
/// </summary>
[Trait("Server", "ternd")]
public sealed class CouchbaseFailureTests(CouchbaseFixture fixture) : IClassFixture<CouchbaseFixture>
{
    // Each failure is due within a round trip or two; the bound only turns a hang into a failure on a busy machine.
    private static readonly TimeSpan FailureBound = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task AWrongPasswordFailsConnectWithAuthenticationFailure()
    {
        var watch = Stopwatch.StartNew();

        var error = Assert.IsType<AuthenticationFailureException>(await Record.ExceptionAsync(async () =>
        {
            await using var cluster = await Cluster.ConnectAsync(fixture.ConnectionString, CouchbaseFixture.Options("not-the-password"));
        }));

        Assert.True(watch.Elapsed < FailureBound, $"took {watch.Elapsed}");
        Assert.DoesNotContain("not-the-password", error.Message);
    }

    [Fact]
    public async Task AnUnknownUserFailsConnectWithAuthenticationFailure()
    {
        var error = await Record.ExceptionAsync(async () =>
        {
            await using var cluster = await Cluster.ConnectAsync(fixture.ConnectionString,
                CouchbaseFixture.Options() with { UserName = "nobody" });
        });

        Assert.IsType<AuthenticationFailureException>(error);
    }

    [Fact]
    public async Task AnUnknownBucketFailsWithBucketNotFound()
    {
        var watch = Stopwatch.StartNew();
        var bucket = fixture.Cluster.Bucket("no-such-bucket");

        var waited = await Assert.ThrowsAsync<BucketNotFoundException>(() => bucket.WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout));

        Assert.Equal("no-such-bucket", waited.BucketName);
        Assert.Contains("no-such-bucket", waited.Message);
        Assert.True(watch.Elapsed < FailureBound, $"took {watch.Elapsed}");
        await Assert.ThrowsAsync<BucketNotFoundException>(() => fixture.Cluster.BucketAsync("no-such-bucket").AsTask());
        // The known bucket is unaffected.
        await fixture.Bucket.DefaultCollection().UpsertAsync($"after-unknown-bucket-{Guid.NewGuid():N}", "v");
    }

    [Fact]
    public async Task AnOperationOnAnUnknownBucketFailsWithBucketNotFound()
    {
        var watch = Stopwatch.StartNew();
        var collection = fixture.Cluster.Bucket("no-such-bucket-either").DefaultCollection();

        var error = await Record.ExceptionAsync(() => collection.GetAsync("k").AsTask());

        Assert.True(error is BucketNotFoundException, $"after {watch.ElapsedMilliseconds} ms: {error}");
        Assert.Contains("no-such-bucket-either", error!.Message);
        Assert.True(watch.Elapsed < FailureBound, $"took {watch.Elapsed}");
    }

    [Fact]
    public async Task AnUnknownCollectionFailsTheFirstOperationWithCollectionNotFound()
    {
        var watch = Stopwatch.StartNew();
        var collection = fixture.Bucket.Scope("app").Collection("nope");

        var error = await Assert.ThrowsAsync<CollectionNotFoundException>(() => collection.UpsertAsync("k", "v").AsTask());

        Assert.True(watch.Elapsed < FailureBound, $"took {watch.Elapsed}");
        Assert.Contains("app.nope", error.Message);
        Assert.Contains(CouchbaseFixture.BucketName, error.Message);
        Assert.Equal(("app", "nope"), (error.ScopeName, error.CollectionName));
        // Later operations fail the same way, reads included.
        var again = await Assert.ThrowsAsync<CollectionNotFoundException>(() => collection.GetAsync("k").AsTask());
        Assert.Contains("app.nope", again.Message);
    }

    [Fact]
    public async Task AnUnknownScopeFailsWithCollectionNotFound()
    {
        var error = await Assert.ThrowsAsync<CollectionNotFoundException>(
            () => fixture.Bucket.Scope("nope").Collection("users").GetAsync("k").AsTask());

        Assert.Contains("nope.users", error.Message);
        // The known collections still work on the same connections.
        var orders = fixture.Bucket.Scope("app").Collection("orders");
        var key = $"order-{Guid.NewGuid():N}";
        await orders.UpsertAsync(key, "order");
        using var read = await orders.GetAsync(key);
        Assert.Equal("order", read.ContentAsString());
    }

    [Fact]
    public async Task NoCredentialsIsAnArgumentErrorBeforeAnythingIsSent()
    {
        await Assert.ThrowsAsync<InvalidArgumentException>(() => Cluster.ConnectAsync(fixture.ConnectionString));
    }
}
