using System.Buffers.Binary;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Tests.Couchbase.Unit;
using static Tern.Client.Tests.SubDoc.SubdocWire;

namespace Tern.Client.Tests.SubDoc;

/// <summary>
/// MutateIn against a scripted node: one SUBDOC_MULTI_MUTATION (0xd1) with the expiry and doc flags
/// in its extras, durability as a framing extra, XATTR specs first on the wire; counter values and
/// failures come back by the caller's index.
/// </summary>
public class MutateInTests
{
    private const byte DictAdd = 0xc7, DictUpsert = 0xc8, Delete = 0xc9, Replace = 0xca, PushLast = 0xcb, PushFirst = 0xcc,
        ArrayInsert = 0xcd, AddUnique = 0xce, Counter = 0xcf, SetDoc = 0x01, DeleteDoc = 0x04;
    private const byte CreatePath = 0x01, Xattr = 0x04, ExpandMacros = 0x10;

    [Fact]
    public async Task SpecsOptionsAndFramesGoOutAsTheProtocolSaysAndTheCounterComesBack()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var options = new MutateInOptions
        {
            Expiry = TimeSpan.FromSeconds(10), StoreSemantics = StoreSemantics.Upsert, AccessDeleted = true, Cas = 42,
            Durability = DurabilityLevel.Majority,
        };

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs
            .Upsert("a", 1, createPath: true)
            .ArrayAppend("t", "x")
            .Increment("n", 5)
            .Upsert("meta.tag", "blue", createPath: true, isXattr: true)
            .Remove("gone"), options).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        // The counter went out fourth (after the XATTR spec): its wire index is 3.
        await node.Peer.ReplyAsync(request, ResponseStatus.Success, MutationValues((3, "47")), extras: TokenExtras(0xabc, 12), cas: 99);
        using var result = await mutate;

        Assert.Equal((Opcode.SubdocMultiMutation, (byte)0x08, (byte)0, 42ul), (request.Opcode, request.Magic, request.Datatype, request.Cas));
        Assert.Equal(new byte[] { 0x13, 0x01, 0x23, 0x28 }, request.FramingExtras.ToArray()); // majority, 9,000 ms (90% of 10 s)
        Assert.Equal(new byte[] { 0, 0, 0, 10, 0x01 | 0x04 }, request.Extras.ToArray());      // expiry, then mkdoc | access deleted
        Assert.Equal(Concat(
                MutationSpec(DictUpsert, CreatePath | Xattr, "meta.tag", "\"blue\""),
                MutationSpec(DictUpsert, CreatePath, "a", "1"),
                MutationSpec(PushLast, 0, "t", "\"x\""),
                MutationSpec(Counter, 0, "n", "5"),
                MutationSpec(Delete, 0, "gone")),
            request.Value.ToArray());
        Assert.Equal(99ul, result.Cas);
        Assert.Equal(new MutationToken(FakeCouchbaseNode.BucketName, request.VBucket, 0xabc, 12), result.MutationToken);
        Assert.Equal(47, result.ContentAs<long>(2));
        Assert.Equal(0, result.ContentAs<long>(0)); // a spec that returns nothing reads as default
        Assert.Equal(2, result.IndexOf("n"));
    }

    [Fact]
    public async Task EveryOperationHasItsOpcodeAndValuesAreJson()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs
            .Insert("i", new { x = 1 })
            .Replace("r", "say \"hi\" é")
            .ArrayPrepend("p", new[] { 1, 2, 3 })
            .ArrayInsert("q[1]", true)
            .ArrayAddUnique("u", 7.5)
            .Decrement("d", 3)
            .ArrayAppend("b", new byte[] { 1, 2, 3 }, createPath: false)
            .Upsert("raw", new ReadOnlyMemory<byte>([0xff]))
            .Upsert("nothing", (string?)null)
            .SetDoc(new { whole = true })).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await mutate).Dispose();

        Assert.Equal(Concat(
                MutationSpec(DictAdd, 0, "i", """{"x":1}"""),
                MutationSpec(Replace, 0, "r", "\"say \\\"hi\\\" é\""),
                MutationSpec(PushFirst, 0, "p", "1,2,3"),           // several values: a list without its brackets
                MutationSpec(ArrayInsert, 0, "q[1]", "true"),
                MutationSpec(AddUnique, 0, "u", "7.5"),
                MutationSpec(Counter, 0, "d", "-3"),
                MutationSpec(PushLast, 0, "b", "1,2,3"),            // a byte[] is several values too, as in the official SDK
                MutationSpec(DictUpsert, 0, "raw", "\"/w==\""),     // bytes as one value: base64, as System.Text.Json writes them
                MutationSpec(DictUpsert, 0, "nothing", "null"),
                MutationSpec(SetDoc, 0, "", """{"whole":true}""")),
            request.Value.ToArray());
        Assert.Empty(request.Extras.ToArray());
        Assert.Equal((byte)0x80, request.Magic);
    }

    [Fact]
    public async Task AnEmptyPathReplacesOrRemovesTheWholeBody()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs
            .Upsert("_sys", 1, isXattr: true).Remove("")).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await mutate).Dispose();
        var replace = bucket.DefaultCollection().MutateInAsync("k", specs => specs.Replace("", new[] { 1 })).Soon();
        var second = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(second, ResponseStatus.Success);
        (await replace).Dispose();

        Assert.Equal(Concat(MutationSpec(DictUpsert, Xattr, "_sys", "1"), MutationSpec(DeleteDoc, 0, "")), request.Value.ToArray());
        Assert.Equal(MutationSpec(SetDoc, 0, "", "[1]"), second.Value.ToArray());
    }

    [Fact]
    public async Task AMacroMakesItsSpecAnExpandedXattrSpec()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs
            .Upsert("body", 1)
            .Upsert("txn.cas", MutationMacro.Cas, createPath: true)
            .Upsert("txn.seq", MutationMacro.SeqNo, isXattr: true)
            .Upsert("txn.crc", MutationMacro.ValueCRC32c, isXattr: true)).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await mutate).Dispose();

        Assert.Equal(Concat(
                MutationSpec(DictUpsert, CreatePath | Xattr | ExpandMacros, "txn.cas", "\"${Mutation.CAS}\""),
                MutationSpec(DictUpsert, Xattr | ExpandMacros, "txn.seq", "\"${Mutation.seqno}\""),
                MutationSpec(DictUpsert, Xattr | ExpandMacros, "txn.crc", "\"${Mutation.value_crc32c}\""),
                MutationSpec(DictUpsert, 0, "body", "1")),
            request.Value.ToArray());
    }

    [Fact]
    public async Task AFailingSpecThrowsForTheWholeCallWithTheCallersIndexAndPath()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("doc", specs => specs
            .Upsert("added", 1).Replace("missing.path", 2).Upsert("x", 3, isXattr: true)).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        // The Replace went out third: wire index 2.
        await node.Peer.ReplyAsync(request, ResponseStatus.SubdocMultiPathFailure, MutationFailure(2, ResponseStatus.SubdocPathEnoent));

        var error = await Assert.ThrowsAsync<PathNotFoundException>(() => mutate);
        Assert.Equal(("doc", "missing.path", 1, (ushort?)0xc0), (error.Key, error.Path, error.Index, error.Status));
        Assert.Equal("path not found: path 'missing.path' (spec 1) of key 'doc'", error.Message);
    }

    [Theory]
    [InlineData(ResponseStatus.SubdocPathEexists, typeof(PathExistsException))]
    [InlineData(ResponseStatus.SubdocPathMismatch, typeof(PathMismatchException))]
    [InlineData(ResponseStatus.SubdocValueCantinsert, typeof(ValueInvalidException))]
    [InlineData(ResponseStatus.SubdocNumErange, typeof(NumberTooBigException))]
    [InlineData(ResponseStatus.SubdocDeltaEinval, typeof(DeltaInvalidException))]
    [InlineData(ResponseStatus.SubdocDocNotJson, typeof(DocumentNotJsonException))]
    [InlineData(ResponseStatus.SubdocXattrUnknownMacro, typeof(XattrException))]
    public async Task EachSpecFailureHasItsType(ResponseStatus status, Type expected)
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs.Increment("n", 1)).Soon();
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.SubdocMultiPathFailure,
            MutationFailure(0, status));

        var error = Assert.IsAssignableFrom<SubDocException>(await Assert.ThrowsAnyAsync<Exception>(() => mutate));
        Assert.IsType(expected, error);
        Assert.Equal(("n", 0), (error.Path, error.Index));
    }

    [Theory]
    [InlineData(ResponseStatus.KeyEnoent, StoreSemantics.Replace, 0ul, typeof(DocumentNotFoundException))]
    [InlineData(ResponseStatus.KeyEexists, StoreSemantics.Insert, 0ul, typeof(DocumentExistsException))]
    [InlineData(ResponseStatus.KeyEexists, StoreSemantics.Replace, 5ul, typeof(CasMismatchException))]
    [InlineData(ResponseStatus.E2big, StoreSemantics.Replace, 0ul, typeof(ValueTooLargeException))]
    [InlineData(ResponseStatus.SubdocInvalidCombo, StoreSemantics.Replace, 0ul, typeof(InvalidArgumentException))]
    public async Task DocumentLevelFailuresUseTheDocumentExceptions(ResponseStatus status, StoreSemantics semantics, ulong cas, Type expected)
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs.Upsert("a", 1),
            new MutateInOptions { StoreSemantics = semantics, Cas = cas }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, status);

        var error = Assert.IsAssignableFrom<TernException>(await Assert.ThrowsAnyAsync<Exception>(() => mutate));
        Assert.IsType(expected, error);
        Assert.Equal("k", error.Key);
        Assert.Equal(semantics == StoreSemantics.Insert ? new byte[] { 0x02 } : [], request.Extras.ToArray());
    }

    [Fact]
    public async Task AnExpiryBeyondThirtyDaysIsAnAbsoluteTimeOnTheClustersClock()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs.Upsert("a", 1),
            new MutateInOptions { Expiry = TimeSpan.FromDays(60), CreateAsDeleted = true, AccessDeleted = true, StoreSemantics = StoreSemantics.Insert }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await mutate).Dispose();

        var expected = (uint)(node.Time.GetUtcNow().ToUnixTimeSeconds() + (long)TimeSpan.FromDays(60).TotalSeconds);
        Assert.Equal(5, request.Extras.Length);
        Assert.Equal(expected, BinaryPrimitives.ReadUInt32BigEndian(request.Extras.Span));
        Assert.Equal(0x02 | 0x04 | 0x08, request.Extras.Span[4]); // add, access deleted, create as deleted
    }

    [Fact]
    public async Task ASuccessOnATombstoneIsASuccessWithItsToken()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs.Upsert("_txn", 1, isXattr: true),
            new MutateInOptions { AccessDeleted = true }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.SubdocSuccessDeleted, extras: TokenExtras(7, 3), cas: 11);
        using var result = await mutate;

        Assert.Equal(new byte[] { 0x04 }, request.Extras.ToArray());
        Assert.Equal(11ul, result.Cas);
        Assert.Equal(3ul, result.MutationToken?.SequenceNumber);
    }

    [Fact]
    public async Task PreserveTtlTravelsAsItsFrame()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var mutate = bucket.DefaultCollection().MutateInAsync("k", specs => specs.Upsert("a", 1), new MutateInOptions { PreserveTtl = true }).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Success);
        (await mutate).Dispose();

        Assert.Equal((byte)0x08, request.Magic);
        Assert.Equal(new byte[] { 0x50 }, request.FramingExtras.ToArray());
    }
}
