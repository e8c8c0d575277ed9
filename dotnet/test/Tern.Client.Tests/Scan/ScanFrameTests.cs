using System.Buffers.Binary;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Scan;
using Tern.Client.Transcoders;

namespace Tern.Client.Tests.Scan;

public class ScanFrameTests
{
    private static byte[] Leb128Of(int value)
    {
        var bytes = new byte[Leb128.MaxLength];
        return bytes[..Leb128.Write(bytes, (uint)value)];
    }

    private static byte[] Document(string key, byte[] value, uint flags, uint expiry, ulong seqno, ulong cas, Datatype datatype)
    {
        var meta = new byte[25];
        BinaryPrimitives.WriteUInt32BigEndian(meta, flags);
        BinaryPrimitives.WriteUInt32BigEndian(meta.AsSpan(4), expiry);
        BinaryPrimitives.WriteUInt64BigEndian(meta.AsSpan(8), seqno);
        BinaryPrimitives.WriteUInt64BigEndian(meta.AsSpan(16), cas);
        meta[24] = (byte)datatype;
        var keyBytes = Encoding.UTF8.GetBytes(key);
        return [.. meta, .. Leb128Of(keyBytes.Length), .. keyBytes, .. Leb128Of(value.Length), .. value];
    }

    private static List<IScanResult> Read(uint layout, byte[] frame)
    {
        var items = new List<IScanResult>();
        ScanFrame.Read(layout, frame, JsonTranscoder.Default, items);
        return items;
    }

    [Fact]
    public void DocumentsCarryTheirMetadataAndContent()
    {
        var body = Encoding.UTF8.GetBytes("""{"n":1}""");
        var longValue = new byte[300]; // a two-byte LEB128 length
        longValue.AsSpan().Fill((byte)'x');
        var frame = Document("doc-1", body, DocumentFlags.Json, 1_900_000_000, 12, 0xabcdef, Datatype.Json)
            .Concat(Document("doc-2", longValue, DocumentFlags.Binary, 0, 13, 7, Datatype.Raw)).ToArray();

        var items = Read(ScanFrame.DocumentsLayout, frame);

        Assert.Equal(["doc-1", "doc-2"], items.Select(item => item.Id));
        var first = (ScanResult)items[0];
        Assert.False(first.IdOnly);
        Assert.Equal(0xabcdeful, first.Cas);
        Assert.Equal(12ul, first.SequenceNumber);
        Assert.Equal(DateTime.UnixEpoch.AddSeconds(1_900_000_000), first.ExpiryTime);
        Assert.Equal(1, first.ContentAs<Dictionary<string, int>>()!["n"]);
        Assert.Null(items[1].ExpiryTime);
        Assert.Equal(longValue, items[1].ContentAsBytes());
    }

    [Fact]
    public void SnappyValuesAreInflated()
    {
        var plain = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("""{"repeat":"abcabcabc"}""", 1)));
        var compressed = Snappier.Snappy.CompressToArray(plain);
        var items = Read(ScanFrame.DocumentsLayout, Document("z", compressed, DocumentFlags.Json, 0, 1, 1, Datatype.Json | Datatype.Snappy));
        Assert.Equal(plain, items[0].ContentAsBytes());
        Assert.Equal(Datatype.Json, ((ScanResult)items[0]).Datatype);
    }

    [Fact]
    public void KeysOnlyItemsHaveNoContent()
    {
        var key = new string('k', 200); // a two-byte LEB128 length
        var frame = Leb128Of(1).Concat("a"u8.ToArray()).Concat(Leb128Of(200)).Concat(Encoding.UTF8.GetBytes(key)).ToArray();

        var items = Read(ScanFrame.KeysLayout, frame);

        Assert.Equal(["a", key], items.Select(item => item.Id));
        Assert.True(items[0].IdOnly);
        Assert.Contains("ids only", Assert.Throws<InvalidOperationException>(() => items[0].ContentAsString()).Message);
    }

    [Theory]
    [InlineData(ScanFrame.KeysLayout, new byte[] { 5, (byte)'a' }, "runs past")]
    [InlineData(ScanFrame.KeysLayout, new byte[] { 0x80 }, "not LEB128")]
    [InlineData(ScanFrame.DocumentsLayout, new byte[] { 1, 2, 3 }, "metadata is cut short")]
    [InlineData(2u, new byte[] { 1, (byte)'a' }, "layout 2")]
    public void AFrameThatDoesNotParseIsAnError(uint layout, byte[] frame, string reason)
    {
        var error = Assert.Throws<TernException>(() => Read(layout, frame));
        Assert.Contains(reason, error.Message);
    }
}
