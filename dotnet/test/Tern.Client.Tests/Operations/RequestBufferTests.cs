using System.Buffers;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Operations;

public class RequestBufferTests
{
    [Fact]
    public void PutsTheWireKeyAfterTheExtrasAndExposesTheLogicalKey()
    {
        var request = new RequestBuffer();
        request.Begin("héllo", 8, [1, 2, 3, 4]);
        request.Finish(Opcode.Get, Datatype.Raw, 0);

        var frame = request.Written;
        var keyBytes = Encoding.UTF8.GetBytes("héllo");
        Assert.Equal(FrameHeader.Size + 4 + 1 + keyBytes.Length, frame.Length);
        Assert.Equal([1, 2, 3, 4], frame.Slice(FrameHeader.Size, 4).ToArray());
        Assert.Equal(8, frame[FrameHeader.Size + 4]);
        Assert.Equal(keyBytes, request.LogicalKey.ToArray());
        Assert.Equal(1 + keyBytes.Length, frame[3]); // key length counts the prefix
    }

    [Fact]
    public void AKeyTooLongLeavesNothingOfThePreviousRequestToSend()
    {
        // A pooled operation reuses its buffer: a rejected key must not leave the last request in it.
        var request = new RequestBuffer();
        request.Begin("previous", null, [0, 0, 0, 0]);
        request.Finish(Opcode.Set, Datatype.Raw, 0);
        Assert.Equal(FrameHeader.Size + 4 + "previous".Length, request.Written.Length);

        Assert.Throws<InvalidArgumentException>(() => request.Begin(new string('k', 249) + "é", null, [0, 0, 0, 0]));

        Assert.Equal(0, request.Written.Length);
    }

    [Fact]
    public void AnEmptyKeyIsRejectedInsteadOfSentAndDropsThePreviousRequest()
    {
        var request = new RequestBuffer();
        request.Begin("previous", null, []);

        var error = Assert.Throws<InvalidArgumentException>(() => request.Begin("", null, [0, 0, 0, 0]));

        Assert.Contains("must not be empty", error.Message);
        Assert.Equal(0, request.Written.Length);
    }

    [Fact]
    public void CopyToFillsInOpaqueAndVBucketAndKeepsTheRequestForARetry()
    {
        var request = new RequestBuffer();
        request.Begin("doc", 8, [1, 2, 3, 4], [0x50]);
        request.Write("the value"u8);
        request.Finish(Opcode.Set, Datatype.Json, 77);
        var length = request.Written.Length;
        var copies = new byte[2 * length];

        request.CopyTo(copies, opaque: 0x01020304, vbucket: 0x0506);
        request.CopyTo(copies.AsSpan(length), opaque: 9, vbucket: 10);

        Assert.Equal(DecodeResult.Ok, FrameCodec.TryDecode(copies.AsSpan(0, length), out var sent));
        Assert.Equal((0x01020304u, (ushort)0x0506, 77ul), (sent.Header.Opaque, sent.Header.VBucketOrStatus, sent.Header.Cas));
        Assert.Equal("the value"u8.ToArray(), sent.Value.ToArray());
        Assert.Equal(DecodeResult.Ok, FrameCodec.TryDecode(copies.AsSpan(length), out var resent));
        Assert.Equal((9u, (ushort)10), (resent.Header.Opaque, resent.Header.VBucketOrStatus));
        // The request itself keeps zero opaque and vbucket: each connection fills in its own.
        AssertDecodesTo(request, new Parts("doc", 8, [1, 2, 3, 4], [0x50], "the value"), Opcode.Set);
        Assert.Equal(DecodeResult.Ok, FrameCodec.TryDecode(request.Written, out var kept));
        Assert.Equal((0u, (ushort)0), (kept.Header.Opaque, kept.Header.VBucketOrStatus));
    }

    /// <summary>A request as its parts: what decoding the produced bytes must give back.</summary>
    public sealed record Parts(string Key, uint? CollectionId, byte[] Extras, byte[] FramingExtras, string Value);

    public static TheoryData<Parts> Layouts() =>
    [
        new("plain", null, [], [], ""),
        new("with-extras", null, [1, 2, 3, 4], [], "value"),
        new("durable", null, [0, 0, 0, 1, 0, 0, 0, 0], [0x11, 0x01], "value"),
        new("durable-in-collection", 8, [0, 0, 0, 1, 0, 0, 0, 0], [0x13, 0x02, 0x00, 0x64], "v"),
        new("preserve-ttl", 300, [], [0x50], ""),
        new(new string('k', 246), 0x1fffff, [9], [0x50, 0x11, 0x03], "a value"),
    ];

    [Theory]
    [MemberData(nameof(Layouts))]
    public void FramingExtrasMakeAnAltRequestThatDecodesToItsParts(Parts parts)
    {
        var request = new RequestBuffer();
        request.Begin(parts.Key, parts.CollectionId, parts.Extras, parts.FramingExtras);
        request.Write(Encoding.UTF8.GetBytes(parts.Value));
        request.Finish(Opcode.Set, Datatype.Json, 77);

        AssertDecodesTo(request, parts, Opcode.Set);
        Assert.Equal(parts.FramingExtras.Length > 0, request.HasFramingExtras);
        Assert.Equal(Encoding.UTF8.GetBytes(parts.Key), request.LogicalKey.ToArray());
    }

    [Fact]
    public void AByteKeyRequestTakesFramingExtrasToo()
    {
        var request = new RequestBuffer();
        request.Begin("raw"u8, [7, 7], [0x50]);
        request.Finish(Opcode.Set, Datatype.Raw, 0);

        AssertDecodesTo(request, new Parts("raw", null, [7, 7], [0x50], ""), Opcode.Set);
        Assert.Equal("raw"u8.ToArray(), request.LogicalKey.ToArray());
    }

    public static TheoryData<uint, uint, byte[]> PrefixChanges() => new()
    {
        { 8, 9, [] },               // same length
        { 8, 300, [] },             // one byte longer
        { 300, 8, [] },             // one byte shorter
        { 0x7f, 0x200000, [] },     // three bytes longer
        { 0x200000, 1, [0x11, 0x01] }, // three bytes shorter, alt request
        { 9, 0x4000, [0x50] },      // alt request, one byte longer
    };

    [Theory]
    [MemberData(nameof(PrefixChanges))]
    public void ChangingTheCollectionPrefixMovesTheRestAndKeepsTheHeaderRight(uint before, uint after, byte[] framingExtras)
    {
        var request = new RequestBuffer();
        request.Begin("doc", before, [1, 2, 3, 4], framingExtras);
        request.Write("the value"u8);
        request.Finish(Opcode.Set, Datatype.Raw, 5);

        request.ChangeCollectionPrefix(after);

        AssertDecodesTo(request, new Parts("doc", after, [1, 2, 3, 4], framingExtras, "the value"), Opcode.Set);
        Assert.Equal("doc"u8.ToArray(), request.LogicalKey.ToArray());
    }

    [Fact]
    public void ARequestWithoutACollectionPrefixHasNoneToChange()
    {
        var request = new RequestBuffer();
        request.Begin("doc", null, []);

        Assert.Throws<InvalidOperationException>(() => request.ChangeCollectionPrefix(8));
    }

    [Fact]
    public void AKeyTooLongForANamedCollectionCannotMoveIntoOne()
    {
        var request = new RequestBuffer();
        request.Begin(new string('k', 250), 0, []);

        var error = Assert.Throws<InvalidArgumentException>(() => request.ChangeCollectionPrefix(8));

        Assert.Contains("longer than 246 UTF-8 bytes (250 bytes)", error.Message);
    }

    /// <summary>Decodes the request with the codec and compares every part and length.</summary>
    private static void AssertDecodesTo(RequestBuffer request, Parts parts, Opcode opcode)
    {
        var bytes = request.Written;
        Assert.Equal(DecodeResult.Ok, FrameCodec.TryDecode(bytes, out var frame));
        Assert.Equal(bytes.Length, frame.Size);
        var wireKey = new byte[Leb128.MaxLength + 256];
        var keyLength = KeyWriter.Write(wireKey, parts.Key, parts.CollectionId);
        var magic = parts.FramingExtras.Length > 0 ? Magic.AltRequest : Magic.Request;
        Assert.Equal(((byte)magic, (byte)opcode), (frame.Header.Magic, frame.Header.Opcode));
        Assert.Equal(parts.FramingExtras, frame.FramingExtras.ToArray());
        Assert.Equal(parts.Extras, frame.Extras.ToArray());
        Assert.Equal(wireKey[..keyLength], frame.Key.ToArray());
        Assert.Equal(parts.Value, Encoding.UTF8.GetString(frame.Value));
    }
}
