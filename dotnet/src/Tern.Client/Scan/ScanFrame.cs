using System.Buffers.Binary;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.Scan;

/// <summary>
/// Reads the items of one RANGE_SCAN_CONTINUE answer frame (kv_engine's range_scan_continue.md).
/// The frame's 4-byte extras say its layout: 0, keys (a LEB128 length, then the key, repeated);
/// 1, documents (25 bytes of metadata: flags u32, expiry u32, seqno u64, CAS u64, datatype u8;
/// then the key and the value, each with a LEB128 length). Documents keep pointing into
/// <c>frame</c>, except Snappy-compressed values, which are inflated into their own array.
/// </summary>
internal static class ScanFrame
{
    public const uint KeysLayout = 0;
    public const uint DocumentsLayout = 1;
    private const int MetadataLength = 25;

    /// <summary>Appends the frame's items to <paramref name="into"/>; throws <see cref="TernException"/> for a frame that does not parse.</summary>
    public static void Read(uint layout, ReadOnlyMemory<byte> frame, ITypeTranscoder transcoder, List<IScanResult> into)
    {
        var span = frame.Span;
        var at = 0;
        while (at < span.Length)
        {
            if (layout == KeysLayout)
            {
                into.Add(new ScanResult(ReadKey(span, ref at)));
                continue;
            }
            if (layout != DocumentsLayout)
                throw Malformed($"its extras name layout {layout}, neither keys (0) nor documents (1)");
            if (span.Length - at < MetadataLength)
                throw Malformed($"a document's metadata is cut short at byte {at}");
            var meta = span.Slice(at, MetadataLength);
            var flags = BinaryPrimitives.ReadUInt32BigEndian(meta);
            var expiry = BinaryPrimitives.ReadUInt32BigEndian(meta[4..]);
            var seqno = BinaryPrimitives.ReadUInt64BigEndian(meta[8..]);
            var cas = BinaryPrimitives.ReadUInt64BigEndian(meta[16..]);
            var datatype = (Datatype)meta[24];
            at += MetadataLength;
            var key = ReadKey(span, ref at);
            var valueLength = ReadLength(span, ref at);
            var value = frame.Slice(at, valueLength);
            at += valueLength;
            if ((datatype & Datatype.Snappy) != 0)
            {
                var (content, length) = ValueCompression.Decompress(new(value), key);
                value = content.AsSpan(0, length).ToArray();
                System.Buffers.ArrayPool<byte>.Shared.Return(content);
                datatype &= ~Datatype.Snappy;
            }
            into.Add(new ScanResult(key, value, flags, expiry, seqno, cas, datatype, transcoder));
        }
    }

    private static string ReadKey(ReadOnlySpan<byte> span, ref int at)
    {
        var length = ReadLength(span, ref at);
        var key = Encoding.UTF8.GetString(span.Slice(at, length));
        at += length;
        return key;
    }

    private static int ReadLength(ReadOnlySpan<byte> span, ref int at)
    {
        if (!Leb128.TryRead(span[at..], out var length, out var used))
            throw Malformed($"a length at byte {at} is not LEB128");
        at += used;
        if (length > span.Length - at)
            throw Malformed($"a length of {length} at byte {at - used} runs past the frame's end ({span.Length} bytes)");
        return (int)length;
    }

    private static TernException Malformed(string why) => new($"the server sent a range scan frame that does not parse: {why}");
}
