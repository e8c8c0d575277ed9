using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// Requests are encoded before the collection id is known (prefix 0, one byte); an id of 128 or
/// more takes two LEB128 bytes, so the key, value and header lengths must move with it, in plain
/// and alt requests alike, and again when UNKNOWN_COLLECTION brings a wider id.
/// </summary>
public class CollectionPrefixWidthTests
{
    // SET extras: flags 0x04000000 (a string), expiry 0.
    private static readonly byte[] StringFlagsNoExpiry = [0x04, 0, 0, 0, 0, 0, 0, 0];

    [Fact]
    public async Task AFirstUpsertIntoACollectionWithATwoByteIdKeepsItsExtrasAndValue()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var upsert = bucket.Scope("app").Collection("users").UpsertAsync("k", "payload").Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            extras: PeerReplies.CollectionIdExtras(300));
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        Assert.Equal(Opcode.Set, request.Opcode);
        Assert.Equal(new byte[] { 0xac, 0x02, (byte)'k' }, request.KeyBytes.ToArray());
        Assert.Equal(StringFlagsNoExpiry, request.Extras.ToArray());
        Assert.Equal("payload", PeerReplies.Text(request.Value));
    }

    [Fact]
    public async Task ADurableFirstUpsertKeepsItsFramingExtrasWhenThePrefixWidens()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var upsert = bucket.Scope("app").Collection("users")
            .UpsertAsync("k", "payload", new UpsertOptions { Durability = DurabilityLevel.Majority }).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            extras: PeerReplies.CollectionIdExtras(300));
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        Assert.Equal((byte)0x08, request.Magic);
        Assert.Equal(new byte[] { 0x13, 0x01, 0x23, 0x28 }, request.FramingExtras.ToArray());
        Assert.Equal(new byte[] { 0xac, 0x02, (byte)'k' }, request.KeyBytes.ToArray());
        Assert.Equal(StringFlagsNoExpiry, request.Extras.ToArray());
        Assert.Equal("payload", PeerReplies.Text(request.Value));
    }

    [Fact]
    public async Task AnUpsertResentAfterUnknownCollectionCarriesTheWiderIdAndTheSameValue()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var users = bucket.Scope("app").Collection("users");
        var first = users.GetAsync("warm").Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            extras: PeerReplies.CollectionIdExtras(9));
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success, "w");
        (await first).Dispose();

        var upsert = users.UpsertAsync("k", "payload").Soon();
        var stale = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(stale, ResponseStatus.UnknownCollection);
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            extras: PeerReplies.CollectionIdExtras(300, manifest: 2));
        var resent = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(resent, ResponseStatus.Success);
        await upsert;

        Assert.Equal(new byte[] { 9, (byte)'k' }, stale.KeyBytes.ToArray());
        Assert.Equal(new byte[] { 0xac, 0x02, (byte)'k' }, resent.KeyBytes.ToArray());
        Assert.Equal(stale.Extras.ToArray(), resent.Extras.ToArray());
        Assert.Equal("payload", PeerReplies.Text(resent.Value));
    }
}
