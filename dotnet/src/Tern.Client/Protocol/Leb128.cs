namespace Tern.Client.Protocol;

/// <summary>
/// Unsigned LEB128 for collection ids: at most 5 bytes, canonical encodings only
/// (a trailing zero byte after the first is rejected).
/// </summary>
public static class Leb128
{
    public const int MaxLength = 5;

    public static int GetLength(uint value)
    {
        var length = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            length++;
        }
        return length;
    }

    /// <summary>Writes <paramref name="value"/>; returns the bytes written. The destination must hold <see cref="GetLength"/> bytes.</summary>
    public static int Write(Span<byte> destination, uint value)
    {
        var i = 0;
        while (value >= 0x80)
        {
            destination[i++] = (byte)(value | 0x80);
            value >>= 7;
        }
        destination[i++] = (byte)value;
        return i;
    }

    /// <summary>Decodes a prefix of <paramref name="source"/>; false if it is truncated, over-long, overflows 32 bits or is not canonical.</summary>
    public static bool TryRead(ReadOnlySpan<byte> source, out uint value, out int bytesRead)
    {
        value = 0;
        bytesRead = 0;
        ulong accumulated = 0;
        for (var i = 0; i < source.Length && i < MaxLength; i++)
        {
            var b = source[i];
            accumulated |= (ulong)(b & 0x7f) << (7 * i);
            if ((b & 0x80) != 0)
                continue;
            if ((b == 0 && i > 0) || accumulated > uint.MaxValue)
                return false;
            value = (uint)accumulated;
            bytesRead = i + 1;
            return true;
        }
        return false;
    }
}
