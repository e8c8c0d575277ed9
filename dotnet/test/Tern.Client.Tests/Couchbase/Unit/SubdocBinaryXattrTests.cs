using System.Buffers.Binary;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// User flags in a multi-mutation's extras and the binary-value path flag (what transactions send
/// for a binary document) need HELLO SubdocBinaryXattr, which Couchbase Server grants from 7.6. On
/// a connection without it the mutation fails unsent, naming the feature, and the connection goes on.
/// </summary>
public class SubdocBinaryXattrTests
{
    private static Task<(FakeCouchbaseNode Node, Bucket Bucket)> StartWithoutBinaryXattrAsync() =>
        FakeCouchbaseNode.StartAsync(supported: FakeCouchbaseNode.AllFeatures.Where(f => f != HelloFeature.SubdocBinaryXattr));

    [Fact]
    public async Task UserFlagsWithoutTheFeatureFailUnsentAndTheNextRequestGoesOut()
    {
        var (node, bucket) = await StartWithoutBinaryXattrAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var error = await Assert.ThrowsAsync<FeatureNotAvailableException>(() =>
            collection.MutateInAsync("k", specs => specs.Upsert("a", 1), new MutateInOptions { UserFlags = 0x03000000 }).Soon());
        var get = collection.GetAsync("next").Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await get).Dispose();

        Assert.Contains("did not negotiate SubdocBinaryXattr", error.Message);
        Assert.Contains("key 'k'", error.Message);
        Assert.Equal("k", error.Key);
        // The first thing the server saw after the refused mutation is the read that followed it.
        Assert.Equal(Opcode.Get, request.Opcode);
    }

    [Fact]
    public async Task ABinaryXattrValueWithoutTheFeatureFailsUnsent()
    {
        var (node, bucket) = await StartWithoutBinaryXattrAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var error = await Assert.ThrowsAsync<FeatureNotAvailableException>(() =>
            collection.MutateInAsync("k", specs => specs.UpsertBinaryXattr("txn.op.bin", [1, 2, 3], createPath: true)).Soon());

        Assert.Contains("did not negotiate SubdocBinaryXattr", error.Message);
        Assert.Equal("k", error.Key);
    }

    [Fact]
    public async Task WithTheFeatureUserFlagsGoOutAfterTheExpiry()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutation = bucket.DefaultCollection()
            .MutateInAsync("k", specs => specs.Upsert("a", 1), new MutateInOptions { UserFlags = 0x03000000 }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        await mutation;

        Assert.Equal(Opcode.SubdocMultiMutation, request.Opcode);
        Assert.Equal(8, request.Extras.Length); // expiry 0, then the flags
        Assert.Equal(0x03000000u, BinaryPrimitives.ReadUInt32BigEndian(request.Extras.Span[4..]));
    }
}
