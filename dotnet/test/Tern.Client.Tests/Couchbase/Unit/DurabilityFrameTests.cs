using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// Durability and preserve-TTL travel as framing extras of an alt request (magic 0x08):
/// DurabilityRequirement is id 1, length 3 (level, u16 timeout in ms), PreserveTtl is id 5,
/// length 0. A server that did not negotiate alt requests gets none of them.
/// </summary>
public class DurabilityFrameTests
{
    private const byte AltRequest = 0x08;

    [Fact]
    public async Task MajorityGoesOutAsADurabilityFrameWithNineTenthsOfTheDurabilityTimeout()
    {
        // KvTimeout is for writes without durability: a durable one takes KvDurabilityTimeout.
        var (node, bucket) = await FakeCouchbaseNode.StartAsync(options => options with
        {
            KvTimeout = TimeSpan.FromSeconds(1),
            KvDurabilityTimeout = TimeSpan.FromSeconds(10),
        });
        await using var _ = node;

        var upsert = bucket.DefaultCollection().UpsertAsync("k", "v", new UpsertOptions { Durability = DurabilityLevel.Majority }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        Assert.Equal(AltRequest, request.Magic);
        // 9,000 ms: 90% of the 10 s durability timeout, so that the server's SyncWriteAmbiguous comes before the client's own timeout.
        Assert.Equal(new byte[] { 0x13, 0x01, 0x23, 0x28 }, request.FramingExtras.ToArray());
        Assert.Equal(PeerReplies.PrefixedKey(0, "k"), request.KeyBytes.ToArray());
        Assert.Equal("v", PeerReplies.Text(request.Value)); // strings are stored as they are
    }

    [Fact]
    public async Task ADurabilityTimeoutPastTheFramesRangeAsksForItsLongestFiniteOne()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var options = new UpsertOptions { Durability = DurabilityLevel.PersistToMajority, Timeout = TimeSpan.FromMinutes(5) };

        var upsert = bucket.DefaultCollection().UpsertAsync("k", "v", options).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        // 65,534 ms: 0xffff is the server's own (no timeout), never sent by a client.
        Assert.Equal(new byte[] { 0x13, 0x03, 0xff, 0xfe }, request.FramingExtras.ToArray());
    }

    [Fact]
    public async Task PreserveTtlAddsItsFrameAfterTheDurabilityFrame()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var options = new UpsertOptions { Durability = DurabilityLevel.Majority, PreserveTtl = true, Timeout = TimeSpan.FromMilliseconds(1500) };

        var upsert = bucket.DefaultCollection().UpsertAsync("k", "v", options).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        Assert.Equal(AltRequest, request.Magic);
        Assert.Equal(new byte[] { 0x13, 0x01, 0x05, 0x46, 0x50 }, request.FramingExtras.ToArray()); // 1,350 ms
    }

    [Fact]
    public async Task WithoutAltRequestsTheMutationFailsUnsent()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync(
            supported: FakeCouchbaseNode.AllFeatures.Where(f => f != HelloFeature.AltRequestSupport));
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var error = await Assert.ThrowsAsync<FeatureNotAvailableException>(() =>
            collection.UpsertAsync("k", "v", new UpsertOptions { Durability = DurabilityLevel.Majority }).Soon());
        var get = collection.GetAsync("next").Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await get).Dispose();

        Assert.Contains("did not negotiate alt requests", error.Message);
        Assert.Equal("k", error.Key);
        // The first thing the server saw after the refused upsert is the read that followed it.
        Assert.Equal((Opcode.Get, (byte)0x80), (request.Opcode, request.Magic));
        Assert.Equal(PeerReplies.PrefixedKey(0, "next"), request.KeyBytes.ToArray());
    }
}
