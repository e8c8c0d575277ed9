using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Tests.Couchbase.Unit;
using static Tern.Client.Tests.SubDoc.SubdocWire;

namespace Tern.Client.Tests.SubDoc;

/// <summary>
/// LookupIn against a scripted node: every lookup is one SUBDOC_MULTI_LOOKUP (0xd0), XATTR specs go
/// first on the wire, and the results come back by the caller's index; a failing spec fails only
/// its own entry, when it is read.
/// </summary>
public class LookupInTests
{
    private const byte Get = 0xc5, Exists = 0xc6, Count = 0xd2, GetDoc = 0x00, Xattr = 0x04;

    [Fact]
    public async Task OneMultiLookupCarriesTheSpecsXattrFirstAndResultsComeBackByTheCallersIndex()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var lookup = bucket.DefaultCollection()
            .LookupInAsync("k", specs => specs.Get("a.b").Exists("c", isXattr: true).Count("d").GetFull()).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        // On the wire: the XATTR spec (caller's 1), then 0, 2, 3.
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, LookupAnswer(
            (ResponseStatus.Success, ""), (ResponseStatus.Success, "\"x\""), (ResponseStatus.Success, "3"),
            (ResponseStatus.Success, """{"a":{"b":"x"},"d":[1,2,3]}""")), cas: 77);
        using var result = await lookup;

        Assert.Equal((Opcode.SubdocMultiLookup, (byte)0x80, (byte)0), (request.Opcode, request.Magic, request.Datatype));
        Assert.Empty(request.Extras.ToArray());
        Assert.Equal(PeerReplies.PrefixedKey(0, "k"), request.KeyBytes.ToArray());
        Assert.Equal(Concat(LookupSpec(Exists, Xattr, "c"), LookupSpec(Get, 0, "a.b"), LookupSpec(Count, 0, "d"), LookupSpec(GetDoc, 0, "")),
            request.Value.ToArray());
        Assert.Equal(77ul, result.Cas);
        Assert.False(result.IsDeleted);
        Assert.Equal(4, result.Count);
        Assert.Equal("x", result.ContentAs<string>(0));
        Assert.True(result.ContentAs<bool>(1));
        Assert.True(result.Exists(1));
        Assert.Equal(3, result.ContentAs<int>(2));
        Assert.Equal(new[] { 1, 2, 3 }, result.ContentAs<Dictionary<string, System.Text.Json.JsonElement>>(3)!["d"]
            .EnumerateArray().Select(e => e.GetInt32()));
        Assert.Equal(2, result.IndexOf("d"));
        Assert.Equal(-1, result.IndexOf("nope"));
    }

    [Fact]
    public async Task AMissingPathFailsOnlyItsOwnEntryNamingTheKeyThePathAndTheIndex()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var lookup = bucket.DefaultCollection()
            .LookupInAsync("user::1", specs => specs.Get("name").Get("nowhere.at.all").Exists("gone").Get("meta", isXattr: true)).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.SubdocMultiPathFailure, LookupAnswer(
            (ResponseStatus.SubdocPathEnoent, ""), (ResponseStatus.Success, "\"Ada\""), (ResponseStatus.SubdocPathEnoent, ""),
            (ResponseStatus.SubdocPathEnoent, "")));
        using var result = await lookup;

        Assert.Equal("Ada", result.ContentAs<string>(0));
        var missing = Assert.Throws<PathNotFoundException>(() => result.ContentAs<string>(1));
        Assert.Equal(("user::1", "nowhere.at.all", 1, (ushort?)0xc0), (missing.Key, missing.Path, missing.Index, missing.Status));
        Assert.Equal("path not found: path 'nowhere.at.all' (spec 1) of key 'user::1'", missing.Message);
        Assert.False(result.Exists(1));
        Assert.False(result.ContentAs<bool>(2)); // an Exists spec of a missing path is simply false
        Assert.False(result.Exists(2));
        var xattr = Assert.Throws<PathNotFoundException>(() => result.ContentAs<string>(3));
        Assert.Equal(("meta", 3), (xattr.Path, xattr.Index)); // the caller's index, though it went first on the wire
    }

    [Fact]
    public async Task AccessDeletedSendsTheDocFlagAndATombstoneAnswerIsDeleted()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var lookup = bucket.DefaultCollection()
            .LookupInAsync("k", specs => specs.Get("_txn", isXattr: true), new LookupInOptions { AccessDeleted = true }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.SubdocSuccessDeleted, LookupAnswer((ResponseStatus.Success, "{\"id\":7}")));
        using var result = await lookup;

        Assert.Equal(new byte[] { 0x04 }, request.Extras.ToArray());
        Assert.Equal(LookupSpec(Get, Xattr, "_txn"), request.Value.ToArray());
        Assert.True(result.IsDeleted);
        Assert.Equal(7, result.ContentAs<Dictionary<string, int>>(0)!["id"]);
    }

    [Fact]
    public async Task AMissingDocumentThrowsDocumentNotFound()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var lookup = bucket.DefaultCollection().LookupInAsync("absent", specs => specs.Get("name")).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.KeyEnoent);

        var error = await Assert.ThrowsAsync<DocumentNotFoundException>(() => lookup);
        Assert.Equal("absent", error.Key);
    }

    [Fact]
    public async Task ReadingAfterDisposeThrowsAndAnIndexOutOfRangeNamesTheCount()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var lookup = bucket.DefaultCollection().LookupInAsync("k", specs => specs.Get("a")).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            LookupAnswer((ResponseStatus.Success, "1")));
        var result = await lookup;

        var outside = Assert.Throws<ArgumentOutOfRangeException>(() => result.ContentAs<int>(1));
        Assert.Contains("1 specs", outside.Message);
        result.Dispose();
        Assert.Throws<ObjectDisposedException>(() => result.ContentAs<int>(0));
    }

    [Fact]
    public async Task AMalformedAnswerFailsTheLookupNotTheConnection()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var lookup = collection.LookupInAsync("k", specs => specs.Get("a").Get("b")).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            LookupAnswer((ResponseStatus.Success, "1"))); // one entry for two specs
        var error = await Assert.ThrowsAsync<TernException>(() => lookup);

        Assert.Contains("malformed", error.Message);
        Assert.Contains("'k'", error.Message);
        var next = collection.LookupInAsync("k", specs => specs.Get("a")).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            LookupAnswer((ResponseStatus.Success, "2")));
        using var result = await next;
        Assert.Equal(2, result.ContentAs<int>(0));
    }

    [Fact]
    public async Task ANamedCollectionPrefixesTheKeyWithItsId()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var lookup = bucket.Scope("app").Collection("users").LookupInAsync("k", specs => specs.Count("tags")).Soon();
        var idLookup = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(idLookup, ResponseStatus.Success, extras: PeerReplies.CollectionIdExtras(9));
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, LookupAnswer((ResponseStatus.Success, "2")));
        using var result = await lookup;

        Assert.Equal(PeerReplies.PrefixedKey(9, "k"), request.KeyBytes.ToArray());
        Assert.Equal(2, result.ContentAs<int>(0));
    }
}
