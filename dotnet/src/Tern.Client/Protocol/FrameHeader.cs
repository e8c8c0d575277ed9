using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

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
        if (destination.Length < Size)
            ThrowTooShort(destination.Length);
        // Every request goes through here: three big-endian 8-byte stores after the one length
        // check, instead of a bounds-checked store per field.
        var keyField = MagicExtensions.HasFramingExtras(Magic)
            ? (ulong)FramingExtrasLength << 8 | checked((byte)KeyLength)
            : KeyLength;
        var first = (ulong)Magic << 56 | (ulong)Opcode << 48 | keyField << 32 | (ulong)ExtrasLength << 24
            | (ulong)Datatype << 16 | VBucketOrStatus;
        ref var start = ref MemoryMarshal.GetReference(destination);
        Unsafe.WriteUnaligned(ref start, BigEndian(first));
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref start, 8), BigEndian((ulong)BodyLength << 32 | Opaque));
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref start, 16), BigEndian(Cas));
    }

    // Out of line, so that building the message costs the hot path no stack.
    [DoesNotReturn]
    private static void ThrowTooShort(int length) =>
        throw new ArgumentException($"a header needs {Size} bytes, the destination holds {length}", "destination");

    private static ulong BigEndian(ulong value) =>
        BitConverter.IsLittleEndian ? BinaryPrimitives.ReverseEndianness(value) : value;
}
