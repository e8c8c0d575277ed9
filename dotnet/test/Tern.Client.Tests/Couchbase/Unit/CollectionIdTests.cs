using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// A named collection's id is looked up once (GET_COLLECTION_ID "scope.collection") and prefixes
/// every key as LEB128; UNKNOWN_COLLECTION makes the SDK look it up once more and resend.
/// </summary>
public class CollectionIdTests
{
    [Fact]
    public async Task TheIdIsLookedUpOnceAndPrefixesEveryKey()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var users = bucket.Scope("app").Collection("users");

        var early = new[] { "a", "b", "c" }.Select(k => users.GetAsync(k).Soon()).ToArray();
        var lookup = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal((Opcode.GetCollectionId, "app.users"), (lookup.Opcode, PeerReplies.Text(lookup.Value)));
        await node.Peer.ReplyAsync(lookup, ResponseStatus.Success, extras: PeerReplies.CollectionIdExtras(9));
        var gets = await node.Peer.ReceiveAsync(3);
        foreach (var get in gets)
            await node.Peer.ReplyAsync(get, ResponseStatus.Success, get.Key);
        foreach (var get in early)
            (await get).Dispose();
        var late = users.GetAsync("d").Soon();
        var lateRequest = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(lateRequest, ResponseStatus.Success);
        (await late).Dispose();

        Assert.All(gets, g => Assert.Equal(Opcode.Get, g.Opcode));
        Assert.Equal(
            new[] { "a", "b", "c" }.Select(k => PeerReplies.PrefixedKey(9, k)).ToHashSet(new BytesComparer()),
            gets.Select(g => g.KeyBytes.ToArray()).ToHashSet(new BytesComparer()));
        Assert.Equal(Opcode.Get, lateRequest.Opcode); // no second lookup
        Assert.Equal(PeerReplies.PrefixedKey(9, "d"), lateRequest.KeyBytes.ToArray());
    }

    [Fact]
    public async Task UnknownCollectionLooksTheIdUpAgainAndResendsWithTheNewPrefix()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var users = bucket.Scope("app").Collection("users");
        var first = users.GetAsync("k").Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            extras: PeerReplies.CollectionIdExtras(9));
        var firstGet = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(firstGet, ResponseStatus.Success, "v");
        (await first).Dispose();

        // The collection was dropped and created again: same name, new id.
        var get = users.GetAsync("k").Soon();
        var stale = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(stale, ResponseStatus.UnknownCollection);
        var lookup = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal((Opcode.GetCollectionId, "app.users"), (lookup.Opcode, PeerReplies.Text(lookup.Value)));
        await node.Peer.ReplyAsync(lookup, ResponseStatus.Success, extras: PeerReplies.CollectionIdExtras(10, manifest: 2));
        var resent = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(resent, ResponseStatus.Success, "v2");
        using var result = await get;
        var later = users.GetAsync("later").Soon();
        var laterRequest = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(laterRequest, ResponseStatus.Success);
        (await later).Dispose();

        Assert.Equal("v2", result.ContentAsString());
        Assert.Equal(PeerReplies.PrefixedKey(9, "k"), stale.KeyBytes.ToArray());
        Assert.Equal(PeerReplies.PrefixedKey(10, "k"), resent.KeyBytes.ToArray());
        Assert.Equal(PeerReplies.PrefixedKey(10, "later"), laterRequest.KeyBytes.ToArray());
    }

    [Fact]
    public async Task UnknownCollectionTwiceFailsRatherThanLookingUpForever()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var users = bucket.Scope("app").Collection("users");

        var get = users.GetAsync("k").Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            extras: PeerReplies.CollectionIdExtras(9));
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.UnknownCollection);
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            extras: PeerReplies.CollectionIdExtras(10));
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.UnknownCollection);

        var error = await Assert.ThrowsAsync<CollectionNotFoundException>(() => get);
        Assert.Equal("collection 'app.users' not found in bucket 'shop'; key 'k' was not sent", error.Message);
    }

    [Fact]
    public async Task ACollectionTheServerDoesNotKnowIsCollectionNotFound()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var get = bucket.Scope("app").Collection("nope").GetAsync("k").Soon();
        var lookup = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal("app.nope", PeerReplies.Text(lookup.Value));
        await node.Peer.ReplyAsync(lookup, ResponseStatus.UnknownCollection);

        var error = await Assert.ThrowsAsync<CollectionNotFoundException>(() => get);
        Assert.Equal(("app", "nope"), (error.ScopeName, error.CollectionName));
        Assert.Contains("'app.nope'", error.Message);
    }

    private sealed class BytesComparer : IEqualityComparer<byte[]>
    {
        public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);

        public int GetHashCode(byte[] obj) => obj.Length;
    }
}
