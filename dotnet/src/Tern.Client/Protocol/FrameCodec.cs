using System.Buffers;

namespace Tern.Client.Protocol;

/// <summary>
/// The pure codec: bytes in, frames out, and back. No I/O, no allocation. Used by the
/// connection's read loop and table-tested with the shared vectors in testdata/mcbp/.
/// </summary>
public static class FrameCodec
{
    /// <summary>Decodes one frame from the front of <paramref name="bytes"/>.</summary>
    public static DecodeResult TryDecode(ReadOnlySpan<byte> bytes, out Frame frame)
    {
        frame = default;
        var result = FrameHeader.TryRead(bytes, out var header);
        if (result != DecodeResult.Ok)
            return result;
        if (bytes.Length < header.FrameSize)
            return DecodeResult.NeedMore;
        frame = new Frame(header, bytes.Slice(FrameHeader.Size, (int)header.BodyLength));
        return DecodeResult.Ok;
    }

    /// <summary>
    /// Decodes the header at the front of a possibly segmented buffer; on Ok the whole frame is
    /// present and <paramref name="body"/> slices it.
    /// </summary>
    public static DecodeResult TryDecode(in ReadOnlySequence<byte> bytes, out FrameHeader header, out ReadOnlySequence<byte> body)
    {
        body = default;
        DecodeResult result;
        if (bytes.FirstSpan.Length >= FrameHeader.Size)
        {
            result = FrameHeader.TryRead(bytes.FirstSpan, out header);
        }
        else
        {
            Span<byte> copy = stackalloc byte[FrameHeader.Size];
            var available = (int)Math.Min(bytes.Length, FrameHeader.Size);
            bytes.Slice(0, available).CopyTo(copy);
            result = FrameHeader.TryRead(copy[..available], out header);
        }
        if (result != DecodeResult.Ok)
            return result;
        if (bytes.Length < header.FrameSize)
            return DecodeResult.NeedMore;
        body = bytes.Slice(FrameHeader.Size, header.BodyLength);
        return DecodeResult.Ok;
    }

    /// <summary>Bytes a frame with these parts occupies.</summary>
    public static int EncodedSize(int framingExtras, int extras, int key, int value) =>
        FrameHeader.Size + framingExtras + extras + key + value;

    /// <summary>
    /// Encodes a frame into <paramref name="destination"/>, which must hold
    /// <see cref="EncodedSize"/> bytes; returns the bytes written. Framing extras need an alt magic.
    /// </summary>
    public static int Encode(Span<byte> destination, byte magic, byte opcode, byte datatype, ushort vbucketOrStatus,
        uint opaque, ulong cas, ReadOnlySpan<byte> framingExtras, ReadOnlySpan<byte> extras,
        ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        if (framingExtras.Length > 0 && !MagicExtensions.HasFramingExtras(magic))
            throw new ArgumentException($"magic 0x{magic:x2} cannot carry framing extras", nameof(framingExtras));
        var bodyLength = framingExtras.Length + extras.Length + key.Length + value.Length;
        new FrameHeader(magic, opcode, checked((byte)framingExtras.Length), checked((ushort)key.Length),
            checked((byte)extras.Length), datatype, vbucketOrStatus, (uint)bodyLength, opaque, cas).Write(destination);
        var offset = FrameHeader.Size;
        framingExtras.CopyTo(destination[offset..]);
        offset += framingExtras.Length;
        extras.CopyTo(destination[offset..]);
        offset += extras.Length;
        key.CopyTo(destination[offset..]);
        offset += key.Length;
        value.CopyTo(destination[offset..]);
        return offset + value.Length;
    }
}
