using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>NOT_MY_VBUCKET carrying a newer cluster map: the map is installed and the request is sent again at once.</summary>
public class NotMyVbucketTests
{
    [Fact]
    public async Task TheMapInTheAnswerIsAppliedAndTheReadIsSentAgain()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        Assert.Equal(1L, node.Topology.Map!.Revision);

        var get = bucket.DefaultCollection().GetAsync("k").Soon();
        var first = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(first, ResponseStatus.NotMyVbucket, node.MapJson(revision: 5));
        var second = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(5L, node.Topology.Map!.Revision); // installed before the request went out again
        await node.Peer.ReplyAsync(second, ResponseStatus.Success, "found");
        using var result = await get;

        Assert.Equal("found", result.ContentAsString());
        Assert.Equal(first.KeyBytes.ToArray(), second.KeyBytes.ToArray());
        Assert.Equal(first.VBucket, second.VBucket);
    }

    [Fact]
    public async Task AnAnswerWithAnOlderMapLeavesTheMapAndBacksOff()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var get = bucket.DefaultCollection().GetAsync("k").Soon();
        var first = Assert.Single(await node.Peer.ReceiveAsync(1));
        var armed = node.Time.NextRetryBackoff();
        await node.Peer.ReplyAsync(first, ResponseStatus.NotMyVbucket, node.MapJson(revision: 1));
        Assert.Equal(TimeSpan.FromMilliseconds(1), await armed);
        node.Time.Advance(TimeSpan.FromMilliseconds(1));
        var second = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(second, ResponseStatus.Success, "found");
        (await get).Dispose();

        Assert.Equal(1L, node.Topology.Map!.Revision);
    }
}
