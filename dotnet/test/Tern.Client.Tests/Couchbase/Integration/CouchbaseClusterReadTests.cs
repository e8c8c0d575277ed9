using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>
/// Reads of three ternd nodes (scripts/cluster.sh) that address vbuckets rather than keys, or more
/// than one copy: each vbucket's scan goes to the node that owns it, which alone holds its
/// documents (a request sent elsewhere would be answered NotMyVbucket until its timeout), so every
/// document comes back once, at any concurrency; replica reads of a bucket without replicas read
/// the active copy, on its node.
/// </summary>
[Trait("Server", "ternd-cluster")]
public sealed class CouchbaseClusterReadTests
{
    private const int Nodes = 3;

    public sealed record Item(int I);

    [Fact]
    public async Task ScansAndReplicaReadsFindEachVBucketOnItsOwner()
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

        // One key of each node.
        foreach (var key in keys.DistinctBy(key => VBuckets.InitialOwner(VBuckets.Of(key), Nodes)))
        {
            using var copy = await collection.GetAnyReplicaAsync(key);
            Assert.True(copy.IsActive);
            Assert.Equal(0, copy.ContentAs<Item>()!.I);
        }
    }
}
