using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// The bucket connection drops with a request on it: a mutation may have been applied, so it is
/// never sent twice; a read is sent again once the node pool has reconnected (50 ms back-off).
/// </summary>
public class ConnectionDropRetryTests
{
    private static readonly TimeSpan ReconnectBackoff = TimeSpan.FromMilliseconds(50);

    [Fact]
    public async Task AMutationSentBeforeTheDropFailsAndIsNotSentAgain()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();
        var upsert = collection.UpsertAsync("k", "value").Soon();
        var sent = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(Opcode.Set, sent.Opcode);
        var reconnecting = node.Time.NextDelayOf(ReconnectBackoff);
        var next = node.NextConnection();

        await node.Peer.DisconnectAsync();

        var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => upsert);
        Assert.EndsWith("the request was sent, so the change may or may not have been applied", error.Message);
        // After the reconnect the first request the node sees is the next read, not the upsert again.
        node.Time.Advance(await reconnecting);
        await node.AcceptReconnectAsync(next);
        var get = collection.GetAsync("after").Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(Opcode.Get, request.Opcode);
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, "x");
        (await get).Dispose();
    }

    [Fact]
    public async Task AReadSentBeforeTheDropIsSentAgainOnTheNewConnection()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var get = bucket.DefaultCollection().GetAsync("k").Soon();
        var lost = Assert.Single(await node.Peer.ReceiveAsync(1));
        var retrying = node.Time.NextRetryBackoff();
        var reconnecting = node.Time.NextDelayOf(ReconnectBackoff);
        var next = node.NextConnection();

        await node.Peer.DisconnectAsync();
        Assert.Equal(TimeSpan.FromMilliseconds(1), await retrying);
        node.Time.Advance(await reconnecting);
        await node.AcceptReconnectAsync(next);

        var resent = Assert.Single(await next.ReceiveAsync(1));
        Assert.Equal(Opcode.Get, resent.Opcode);
        Assert.Equal(lost.KeyBytes.ToArray(), resent.KeyBytes.ToArray());
        await next.ReplyAsync(resent, ResponseStatus.Success, "again");
        using var result = await get;
        Assert.Equal("again", result.ContentAsString());
    }
}
