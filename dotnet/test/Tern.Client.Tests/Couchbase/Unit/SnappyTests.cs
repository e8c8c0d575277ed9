using Tern.Client.Exceptions;
using Snappier;
using Tern.Client.Couchbase;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// With Snappy negotiated, values worth compressing go out compressed (datatype bit 0x02) and
/// compressed answers are decompressed for the caller; with compression disabled Snappy is not
/// even asked for.
/// </summary>
public class SnappyTests
{
    private const byte SnappyBit = 0x02;

    [Fact]
    public async Task ALargeRepetitiveValueIsSentCompressed()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var content = Enumerable.Repeat((byte)'a', 1000).ToArray();

        var upsert = bucket.DefaultCollection().UpsertAsync("big", content).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        Assert.Contains(HelloFeature.Snappy, node.LastHello);
        Assert.Equal(SnappyBit, request.Datatype & SnappyBit);
        Assert.True(request.Value.Length < 1000, $"the value went out with {request.Value.Length} bytes");
        Assert.Equal(content, Snappy.DecompressToArray(request.Value.Span));
    }

    [Fact]
    public async Task ASmallValueIsSentAsItIs()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var content = "0123456789"u8.ToArray();

        var upsert = bucket.DefaultCollection().UpsertAsync("small", content).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        Assert.Equal(0, request.Datatype & SnappyBit);
        Assert.Equal(content, request.Value.ToArray());
    }

    [Fact]
    public async Task ACompressedAnswerIsDecompressedForTheCaller()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var content = Enumerable.Range(0, 2000).Select(i => (byte)(i % 7)).ToArray();

        var get = bucket.DefaultCollection().GetAsync("big").Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        var flags = new byte[4];
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(flags, DocumentFlags.Binary);
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, Snappy.CompressToArray(content), extras: flags, datatype: SnappyBit);
        using var result = await get;

        Assert.Equal(content, result.ContentAsBytes());
        Assert.Equal(content, result.ContentAs<byte[]>());
        Assert.Equal(Datatype.Raw, result.Datatype);
    }

    [Fact]
    public async Task ACorruptCompressedAnswerFailsThatGetOnlyAndTheConnectionCarriesOn()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var broken = collection.GetAsync("broken").Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, [0xff, 0xff, 0xff, 0xff, 0xff, 0x01], extras: new byte[4], datatype: SnappyBit);
        var error = await Assert.ThrowsAsync<TernException>(() => broken);
        Assert.Contains("'broken'", error.Message);
        Assert.Contains("Snappy", error.Message);

        var next = collection.GetAsync("next").Soon();
        var nextRequest = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(nextRequest, ResponseStatus.Success, "{}"u8.ToArray(), extras: new byte[4]);
        using var result = await next;
        Assert.Equal("{}"u8.ToArray(), result.ContentAsBytes());
    }

    [Fact]
    public async Task WithCompressionDisabledSnappyIsNotAskedForAndNothingIsCompressed()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync(o => o with { EnableCompression = false });
        await using var _ = node;
        var content = Enumerable.Repeat((byte)'a', 1000).ToArray();

        var upsert = bucket.DefaultCollection().UpsertAsync("big", content).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await upsert;

        Assert.DoesNotContain(HelloFeature.Snappy, node.LastHello);
        Assert.Contains(HelloFeature.Collections, node.LastHello);
        Assert.Equal(0, request.Datatype & SnappyBit);
        Assert.Equal(content, request.Value.ToArray());
    }

    [Fact]
    public async Task WithCompressionDisabledNoHelloAsksForSnappy()
    {
        var (node, _) = await FakeCouchbaseNode.StartAsync(o => o with { EnableCompression = false });
        await using var _ = node;

        Assert.DoesNotContain(HelloFeature.Snappy, node.LastHello);
        Assert.DoesNotContain(HelloFeature.Snappy, node.ProbeHello);
    }
}
