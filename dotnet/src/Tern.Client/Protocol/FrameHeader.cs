using System.Buffers.Binary;

namespace Tern.Client.Protocol;

/// <summary>What decoding the front of a buffer found.</summary>
public enum DecodeResult
{
    /// <summary>A whole frame was decoded.</summary>
    Ok,
    /// <summary>Only part of a frame is present; nothing was consumed.</summary>
    NeedMore,
    /// <summary>The first byte is no known magic: the stream cannot be trusted.</summary>
    BadMagic,
    /// <summary>Framing extras + extras + key exceed the body length: the stream cannot be trusted.</summary>
    BadLengths,
}

/// <summary>The fixed 24-byte header of a frame, decoded without looking at the body.</summary>
public readonly record struct FrameHeader(
    byte Magic,
    byte Opcode,
    byte FramingExtrasLength,
    ushort KeyLength,
    byte ExtrasLength,
    byte Datatype,
    ushort VBucketOrStatus,
    uint BodyLength,
    uint Opaque,
    ulong Cas)
{
    public const int Size = 24;

    /// <summary>Header plus body.</summary>
    public long FrameSize => Size + (long)BodyLength;

    public int ValueLength => (int)(BodyLength - FramingExtrasLength - ExtrasLength - KeyLength);

    /// <summary>
    /// Decodes and validates a header: NeedMore before <see cref="Size"/> bytes are present,
    /// then BadMagic or BadLengths, else Ok (the body may still be missing).
    /// </summary>
    public static DecodeResult TryRead(ReadOnlySpan<byte> bytes, out FrameHeader header)
    {
        header = default;
        if (bytes.Length < Size)
            return DecodeResult.NeedMore;
        var magic = bytes[0];
        if (!MagicExtensions.IsKnown(magic))
            return DecodeResult.BadMagic;
        var alt = MagicExtensions.HasFramingExtras(magic);
        header = new FrameHeader(
            magic,
            bytes[1],
            alt ? bytes[2] : (byte)0,
            alt ? bytes[3] : BinaryPrimitives.ReadUInt16BigEndian(bytes[2..]),
            bytes[4],
            bytes[5],
            BinaryPrimitives.ReadUInt16BigEndian(bytes[6..]),
            BinaryPrimitives.ReadUInt32BigEndian(bytes[8..]),
            BinaryPrimitives.ReadUInt32BigEndian(bytes[12..]),
            BinaryPrimitives.ReadUInt64BigEndian(bytes[16..]));
        if ((long)header.FramingExtrasLength + header.ExtrasLength + header.KeyLength > header.BodyLength)
            return DecodeResult.BadLengths;
        return DecodeResult.Ok;
    }

    /// <summary>Writes the header into the first <see cref="Size"/> bytes of <paramref name="destination"/>.</summary>
    public void Write(Span<byte> destination)
    {
        destination[0] = Magic;
        destination[1] = Opcode;
        if (MagicExtensions.HasFramingExtras(Magic))
        {
            destination[2] = FramingExtrasLength;
            destination[3] = checked((byte)KeyLength);
        }
        else
        {
            BinaryPrimitives.WriteUInt16BigEndian(destination[2..], KeyLength);
        }
        destination[4] = ExtrasLength;
        destination[5] = Datatype;
        BinaryPrimitives.WriteUInt16BigEndian(destination[6..], VBucketOrStatus);
        BinaryPrimitives.WriteUInt32BigEndian(destination[8..], BodyLength);
        BinaryPrimitives.WriteUInt32BigEndian(destination[12..], Opaque);
        BinaryPrimitives.WriteUInt64BigEndian(destination[16..], Cas);
    }
}
