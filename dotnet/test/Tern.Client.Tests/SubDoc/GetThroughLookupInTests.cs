using System.Text.Json;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Tests.Couchbase.Unit;
using Tern.Client.Transcoders;
using static Tern.Client.Tests.SubDoc.SubdocWire;

namespace Tern.Client.Tests.SubDoc;

/// <summary>
/// GetAsync with WithExpiry or a Projection is a SUBDOC_MULTI_LOOKUP, as in the official SDKs:
/// <c>$document.exptime</c> and <c>$document.flags</c> (virtual XATTRs) beside the body, or one Get
/// per projected path assembled into one JSON object.
/// </summary>
public class GetThroughLookupInTests
{
    private const byte Get = 0xc5, GetDoc = 0x00, Xattr = 0x04;

    [Fact]
    public async Task WithExpiryReadsExptimeAndFlagsBesideTheBody()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var get = bucket.DefaultCollection().GetAsync("k", new GetOptions { WithExpiry = true }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, LookupAnswer(
            (ResponseStatus.Success, "1700000000"), (ResponseStatus.Success, DocumentFlags.Json.ToString()),
            (ResponseStatus.Success, """{"name":"Ada"}""")), cas: 5);
        using var result = await get;

        Assert.Equal(Opcode.SubdocMultiLookup, request.Opcode);
        Assert.Equal(Concat(LookupSpec(Get, Xattr, "$document.exptime"), LookupSpec(Get, Xattr, "$document.flags"), LookupSpec(GetDoc, 0, "")),
            request.Value.ToArray());
        Assert.Equal(new DateTime(2023, 11, 14, 22, 13, 20, DateTimeKind.Utc), result.ExpiryTime);
        Assert.Equal(DateTimeKind.Utc, result.ExpiryTime!.Value.Kind);
        Assert.Equal((DocumentFlags.Json, Datatype.Json, 5ul), (result.Flags, result.Datatype, result.Cas));
        Assert.Equal("Ada", result.ContentAs<Dictionary<string, string>>()!["name"]);
    }

    [Fact]
    public async Task NoExpiryIsNullAndTheFlagsDecideHowTheBodyDecodes()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var get = bucket.DefaultCollection().GetAsync("k", new GetOptions { WithExpiry = true }).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success, LookupAnswer(
            (ResponseStatus.Success, "0"), (ResponseStatus.Success, DocumentFlags.String.ToString()), (ResponseStatus.Success, "plain text")));
        using var result = await get;

        Assert.Null(result.ExpiryTime);
        Assert.Equal("plain text", result.ContentAs<string>());
        Assert.Equal(Datatype.Raw, result.Datatype);
    }

    [Fact]
    public async Task TryGetWithExpiryOfAMissingDocumentIsNotFound()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var tried = collection.TryGetAsync("absent", new GetOptions { WithExpiry = true }).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.KeyEnoent);
        using (var result = await tried)
            Assert.False(result.Found);
        var got = collection.GetAsync("absent", new GetOptions { WithExpiry = true }).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.KeyEnoent);

        Assert.Equal("absent", (await Assert.ThrowsAsync<DocumentNotFoundException>(() => got)).Key);
    }

    [Fact]
    public async Task AProjectionGetsEachPathAndAssemblesThemWithTheDocumentsStructure()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var get = bucket.DefaultCollection().GetAsync("k",
            new GetOptions { Projection = ["name", "address.city", "langs[1]", "missing", "address.zip"], WithExpiry = true }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.SubdocMultiPathFailure, LookupAnswer(
            (ResponseStatus.Success, "0"), (ResponseStatus.Success, "\"Ada\""), (ResponseStatus.Success, "\"Paris\""),
            (ResponseStatus.Success, "\"fr\""), (ResponseStatus.SubdocPathEnoent, ""), (ResponseStatus.Success, "75001")));
        using var result = await get;

        Assert.Equal(Concat(LookupSpec(Get, Xattr, "$document.exptime"), LookupSpec(Get, 0, "name"), LookupSpec(Get, 0, "address.city"),
            LookupSpec(Get, 0, "langs[1]"), LookupSpec(Get, 0, "missing"), LookupSpec(Get, 0, "address.zip")), request.Value.ToArray());
        Assert.Equal("""{"name":"Ada","address":{"city":"Paris","zip":75001},"langs":["fr"]}""", result.ContentAsString());
        Assert.Equal((DocumentFlags.Json, Datatype.Json), (result.Flags, result.Datatype));
        Assert.Null(result.ExpiryTime);
    }

    [Fact]
    public async Task MoreThanSixteenPathsReadTheWholeBodyAndProjectItHere()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var fields = Enumerable.Range(0, 17).Select(i => $"f{i}").ToList();
        var document = "{" + string.Join(",", Enumerable.Range(0, 20).Select(i => $"\"f{i}\":{i}")) + ",\"nested\":{\"a\":[1,{\"b\":2}]}}";

        var get = bucket.DefaultCollection().GetAsync("k", new GetOptions { Projection = [.. fields, "nested.a[-1].b", "nowhere"] }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, LookupAnswer((ResponseStatus.Success, document)));
        using var result = await get;

        Assert.Equal(LookupSpec(GetDoc, 0, ""), request.Value.ToArray());
        var projected = result.ContentAs<JsonElement>();
        Assert.Equal(fields.Append("nested"), projected.EnumerateObject().Select(p => p.Name));
        Assert.Equal(16, projected.GetProperty("f16").GetInt32());
        Assert.Equal("""{"a":[{"b":2}]}""", projected.GetProperty("nested").GetRawText());
    }

    [Fact]
    public async Task FifteenPathsFitBesideTheExpiry()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var fields = Enumerable.Range(0, 16).Select(i => $"f{i}").ToArray();

        var get = bucket.DefaultCollection().GetAsync("k", new GetOptions { Projection = fields, WithExpiry = true }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, LookupAnswer(
            (ResponseStatus.Success, "1700000000"), (ResponseStatus.Success, """{"f0":0,"f15":15,"other":1}""")));
        using var result = await get;

        // Sixteen paths and the expiry make 17 specs: the body is read whole, beside the expiry.
        Assert.Equal(Concat(LookupSpec(Get, Xattr, "$document.exptime"), LookupSpec(GetDoc, 0, "")), request.Value.ToArray());
        Assert.Equal("""{"f0":0,"f15":15}""", result.ContentAsString());
        Assert.NotNull(result.ExpiryTime);
    }
}
