using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.SubDoc;
using Tern.Client.Tests.Couchbase.Unit;
using static Tern.Client.Tests.SubDoc.SubdocWire;

namespace Tern.Client.Tests.SubDoc;

/// <summary>
/// The protocol's limits, enforced before anything is sent: at most 16 specs, paths of at most
/// 1024 UTF-8 bytes, at least one spec; each error names the key, the path where there is one, and
/// the limit. A builder is valid only inside its callback.
/// </summary>
public class SpecLimitTests
{
    [Fact]
    public async Task SeventeenSpecsAreRefusedAndNothingIsSent()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var lookup = Assert.Throws<ArgumentException>(() => collection.LookupInAsync("k", specs =>
        {
            for (var i = 0; i < 17; i++)
                specs.Get($"p{i}");
        }));
        var mutate = Assert.Throws<ArgumentException>(() => collection.MutateInAsync("k", specs =>
        {
            for (var i = 0; i < 17; i++)
                specs.Upsert($"p{i}", i);
        }));
        var empty = Assert.Throws<ArgumentException>(() => collection.MutateInAsync("k", _ => { }));

        Assert.Contains("at most 16 specs", lookup.Message);
        Assert.Contains("LookupIn of key 'k'", lookup.Message);
        Assert.Contains("MutateIn of key 'k'", mutate.Message);
        Assert.Contains("at least one spec", empty.Message);
        await TheNextRequestIsTheFirstTheServerSees(node, collection);
    }

    [Fact]
    public async Task APathOver1024BytesIsRefusedAndNothingIsSent()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();
        var tooLong = new string('é', 513); // 1026 UTF-8 bytes in 513 chars

        var error = Assert.Throws<ArgumentException>(() => collection.MutateInAsync("doc", specs => specs.Upsert("ok", 1).Upsert(tooLong, 2)));

        Assert.Contains("key 'doc'", error.Message);
        Assert.Contains($"path '{tooLong[..300]}...'", error.Message); // long paths are shortened in messages, as keys are
        Assert.Contains("1024 UTF-8 bytes (1026 bytes)", error.Message);
        Assert.Equal("path", error.ParamName);
        await TheNextRequestIsTheFirstTheServerSees(node, collection);
    }

    [Fact]
    public void APathOfExactly1024BytesIsEncodedWhole()
    {
        var specs = new SubdocSpecList();
        specs.Begin("LookupIn", "k");
        var path = new string('a', 1022) + "é"; // 1024 bytes
        specs.Add(new SubdocSpec(Opcode.SubdocGet, SubdocPathFlags.None, path));
        var request = new RequestBuffer();
        request.Begin("k", null, default);
        Span<byte> order = stackalloc byte[SubdocSpecList.MaxSpecs];

        specs.Encode(request, mutation: false, default, order);

        Assert.Equal(LookupSpec(0xc5, 0, path), request.Value.ToArray());
    }

    [Fact]
    public void XattrSpecsGoFirstKeepingTheirOrderAndTheWireOrderMapsBack()
    {
        var specs = new SubdocSpecList();
        specs.Begin("LookupIn", "k");
        foreach (var (path, xattr) in new[] { ("a", false), ("x1", true), ("b", false), ("x2", true), ("c", false) })
            specs.Add(new SubdocSpec(Opcode.SubdocGet, xattr ? SubdocPathFlags.Xattr : SubdocPathFlags.None, path));
        var request = new RequestBuffer();
        request.Begin("k", null, default);
        var order = new byte[SubdocSpecList.MaxSpecs];

        specs.Encode(request, mutation: false, default, order);

        Assert.Equal(new byte[] { 1, 3, 0, 2, 4 }, order[..5]);
        Assert.Equal(Concat(LookupSpec(0xc5, 4, "x1"), LookupSpec(0xc5, 4, "x2"), LookupSpec(0xc5, 0, "a"), LookupSpec(0xc5, 0, "b"),
            LookupSpec(0xc5, 0, "c")), request.Value.ToArray());
    }

    [Fact]
    public async Task ABuilderKeptPastItsCallbackRefusesSpecs()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        LookupInSpecBuilder? kept = null;

        var lookup = bucket.DefaultCollection().LookupInAsync("k", specs => kept = specs.Get("a")).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Success,
            LookupAnswer((ResponseStatus.Success, "1")));
        (await lookup).Dispose();

        var error = Assert.Throws<InvalidOperationException>(() => kept!.Get("b"));
        Assert.Contains("only inside the LookupInAsync callback", error.Message);
    }

    [Fact]
    public async Task ACallbackThatThrowsLeavesTheNextCallAFreshBuilder()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        Assert.Throws<FormatException>(() => collection.MutateInAsync("k", specs =>
        {
            specs.Upsert("left", "over");
            throw new FormatException("caller's bug");
        }));
        var mutate = collection.MutateInAsync("k", specs => specs.Upsert("a", 1)).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await mutate).Dispose();

        Assert.Equal(MutationSpec(0xc8, 0, "a", "1"), request.Value.ToArray());
    }

    /// <summary>Whatever was refused before never reached the server: the next lookup is the first request it sees.</summary>
    private static async Task TheNextRequestIsTheFirstTheServerSees(FakeCouchbaseNode node, Collection collection)
    {
        var next = collection.LookupInAsync("next", specs => specs.Get("a")).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, LookupAnswer((ResponseStatus.Success, "1")));
        (await next).Dispose();
        Assert.Equal(PeerReplies.PrefixedKey(0, "next"), request.KeyBytes.ToArray());
    }
}
