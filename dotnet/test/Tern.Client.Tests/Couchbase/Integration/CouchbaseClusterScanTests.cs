using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>
/// A scan of three ternd nodes (scripts/cluster.sh): each vbucket's scan goes to the node that owns
/// it, which alone holds its documents; a request sent elsewhere would be answered NotMyVbucket
/// until its timeout. Every document comes back once, at any concurrency.
/// </summary>
[Trait("Server", "ternd-cluster")]
public sealed class CouchbaseClusterScanTests
{
    private const int Nodes = 3;

    public sealed record Item(int I);

    [Fact]
    public async Task EachVBucketIsScannedOnItsOwnerAndEveryDocumentComesBackOnce()
    {
        await using var nodes = await TerndCluster.StartAsync(Nodes);
        await using var cluster = await Cluster.ConnectAsync(nodes.ConnectionString, CouchbaseFixture.Options());
        var bucket = cluster.Bucket(CouchbaseFixture.BucketName);
        await bucket.WaitUntilReadyAsync(CouchbaseFixture.ReadyTimeout);
        var collection = bucket.Scope("app").Collection("orders");
        var keys = Enumerable.Range(0, 900).Select(i => $"cluster-scan-{i:D3}").ToArray();
        foreach (var chunk in keys.Chunk(64))
            await Task.WhenAll(chunk.Select(key => collection.UpsertAsync(key, new Item(0)).AsTask()));
        // The keys are spread over every node.
        Assert.Equal(Nodes, keys.Select(key => VBuckets.InitialOwner(VBuckets.Of(key), Nodes)).Distinct().Count());

        foreach (var concurrency in new[] { 1, 8 })
        {
            var scanned = new List<string>();
            await foreach (var item in collection.ScanAsync(new PrefixScan("cluster-scan-"),
                               new ScanOptions { IdsOnly = true, ConcurrentVBucketScans = concurrency, Timeout = TimeSpan.FromSeconds(20) }))
                scanned.Add(item.Id);
            Assert.Equal(keys, scanned.Order());
        }
    }
}
