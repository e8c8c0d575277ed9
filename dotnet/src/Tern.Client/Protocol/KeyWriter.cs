using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Text;
using System.Text.Unicode;
using Tern.Client.Exceptions;

namespace Tern.Client.Protocol;

/// <summary>
/// Writes a document key as it goes on the wire: an optional LEB128 collection-id prefix, then
/// the key's UTF-8 bytes. Never allocates: it encodes into a caller's span (a buffer of
/// <see cref="MaxWireLength"/> bytes always suffices) or straight into a buffer writer's memory.
/// The key is encoded in one pass, which is also its validation. A key that is empty or too long
/// throws <see cref="InvalidArgumentException"/>; a buffer writer is then not advanced, and a
/// span's content is unspecified.
/// </summary>
public static class KeyWriter
{
    /// <summary>Longest logical key in UTF-8 bytes without collections or in the default collection.</summary>
    public const int MaxKeyLength = 250;

    /// <summary>Longest logical key in UTF-8 bytes in a non-default collection (wire key at most 251 bytes).</summary>
    public const int MaxKeyLengthInCollection = 246;

    /// <summary>Longest key on the wire, prefix included; a buffer this long fits any valid key.</summary>
    public const int MaxWireLength = MaxKeyLength + Leb128.MaxLength;

    // A UTF-16 char never takes more than 3 UTF-8 bytes (a surrogate pair: 2 chars, 4 bytes).
    private const int MaxUtf8BytesPerChar = 3;

    /// <summary>Validates the key and returns its wire length (prefix plus UTF-8 bytes).</summary>
    public static int GetWireLength(string key, uint? collectionId = null)
    {
        var limit = CheckCharCount(key, collectionId);
        var utf8Length = Encoding.UTF8.GetByteCount(key);
        if (utf8Length > limit)
            throw KeyTooLong(key, limit);
        return PrefixLength(collectionId) + utf8Length;
    }

    /// <summary>Writes the wire key into <paramref name="destination"/>; returns the bytes written.</summary>
    public static int Write(Span<byte> destination, string key, uint? collectionId = null)
    {
        var limit = CheckCharCount(key, collectionId);
        var prefixLength = PrefixLength(collectionId);
        if (destination.Length <= prefixLength)
            throw Unwritable(destination.Length, key, collectionId, limit);
        // Capping the room at the limit makes the encoder itself reject a key that is too long.
        var room = destination[prefixLength..];
        if (room.Length > limit)
            room = room[..limit];
        int keyLength;
        if (TryNarrowAscii(key, room))
            keyLength = key.Length;
        else if (Utf8.FromUtf16(key, room, out _, out keyLength) != OperationStatus.Done)
            throw Unwritable(destination.Length, key, collectionId, limit);
        if (collectionId is { } cid)
            Leb128.Write(destination, cid);
        return prefixLength + keyLength;
    }

    /// <summary>Writes the wire key into the writer's memory and advances it; returns the bytes written.</summary>
    public static int Write(IBufferWriter<byte> writer, string key, uint? collectionId = null)
    {
        var limit = CheckCharCount(key, collectionId);
        var room = PrefixLength(collectionId) + Math.Min(key.Length * MaxUtf8BytesPerChar, limit);
        var written = Write(writer.GetSpan(room), key, collectionId);
        writer.Advance(written);
        return written;
    }

    /// <summary>
    /// Copies an all-ASCII key into <paramref name="room"/>, one byte per char, 8 chars per vector
    /// step (the last step overlaps the one before). Keys are nearly always ASCII, and this inlined
    /// loop costs a fraction of the UTF-8 transcoder's calls and set-up on a short key. False at the
    /// first non-ASCII char or when the key is longer than the room: the transcoder then starts over.
    /// </summary>
    private static bool TryNarrowAscii(string key, Span<byte> room)
    {
        var length = key.Length;
        if (length > room.Length)
            return false;
        ref var source = ref Unsafe.As<char, ushort>(ref MemoryMarshal.GetReference(key.AsSpan()));
        ref var target = ref MemoryMarshal.GetReference(room);
        var i = 0;
        if (Vector128.IsHardwareAccelerated && length >= Vector128<ushort>.Count)
        {
            var last = length - Vector128<ushort>.Count;
            var nonAscii = Vector128.Create((ushort)0xff80);
            while (true)
            {
                var chars = Vector128.LoadUnsafe(ref source, (nuint)i);
                if ((chars & nonAscii) != Vector128<ushort>.Zero)
                    return false;
                Vector128.Narrow(chars, chars).GetLower().StoreUnsafe(ref target, (nuint)i);
                if (i == last)
                    return true;
                i = Math.Min(i + Vector128<ushort>.Count, last);
            }
        }
        for (; i < length; i++)
        {
            var c = Unsafe.Add(ref source, i);
            if (c > 0x7f)
                return false;
            Unsafe.Add(ref target, i) = (byte)c;
        }
        return true;
    }

    /// <summary>
    /// Rejects a null or empty key, and one too long by its char count alone (every char takes at
    /// least one UTF-8 byte); returns the key's limit in UTF-8 bytes.
    /// </summary>
    private static int CheckCharCount(string key, uint? collectionId)
    {
        ArgumentNullException.ThrowIfNull(key);
        var limit = collectionId is null or 0 ? MaxKeyLength : MaxKeyLengthInCollection;
        if (key.Length == 0)
            throw new InvalidArgumentException("document key must not be empty", key);
        if (key.Length > limit)
            throw KeyTooLong(key, limit);
        return limit;
    }

    private static int PrefixLength(uint? collectionId) => collectionId is { } cid ? Leb128.GetLength(cid) : 0;

    // Error paths only: here the key's full UTF-8 length is worth measuring.
    private static InvalidArgumentException KeyTooLong(string key, int limit) =>
        new($"document key '{TernException.Describe(key)}' is longer than {limit} UTF-8 bytes " +
            $"({Encoding.UTF8.GetByteCount(key)} bytes); it was not sent", key);

    /// <summary>Why a key did not fit: too long for the protocol, or only for the caller's destination.</summary>
    private static Exception Unwritable(int destinationLength, string key, uint? collectionId, int limit)
    {
        var utf8Length = Encoding.UTF8.GetByteCount(key);
        if (utf8Length > limit)
            return KeyTooLong(key, limit);
        return new ArgumentException(
            $"destination holds {destinationLength} bytes; the key needs {PrefixLength(collectionId) + utf8Length}", "destination");
    }
}
