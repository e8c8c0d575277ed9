using System.Buffers;
using System.Text;
using Tern.Client.Exceptions;

namespace Tern.Client.Protocol;

/// <summary>
/// Writes a document key as it goes on the wire: an optional LEB128 collection-id prefix, then
/// the key's UTF-8 bytes. Never allocates: it encodes into a caller's span (a stack buffer of
/// <see cref="MaxWireLength"/> bytes always suffices) or straight into a buffer writer's memory.
/// A key that is empty or too long throws <see cref="InvalidArgumentException"/> before any byte is written.
/// </summary>
public static class KeyWriter
{
    /// <summary>Longest logical key in UTF-8 bytes without collections or in the default collection.</summary>
    public const int MaxKeyLength = 250;

    /// <summary>Longest logical key in UTF-8 bytes in a non-default collection.</summary>
    public const int MaxKeyLengthInCollection = 246;

    /// <summary>Longest key on the wire, prefix included; a stack buffer this long fits any valid key.</summary>
    public const int MaxWireLength = MaxKeyLength + Leb128.MaxLength;

    /// <summary>Validates the key and returns its wire length (prefix plus UTF-8 bytes).</summary>
    public static int GetWireLength(string key, uint? collectionId = null)
    {
        ArgumentNullException.ThrowIfNull(key);
        var limit = collectionId is null or 0 ? MaxKeyLength : MaxKeyLengthInCollection;
        // Every char takes at least one UTF-8 byte, so a long string fails without being measured.
        var utf8Length = key.Length > limit ? limit + 1 : Encoding.UTF8.GetByteCount(key);
        if (utf8Length == 0)
            throw new InvalidArgumentException("document key must not be empty", key);
        if (utf8Length > limit)
            throw KeyTooLong(key, limit);
        return utf8Length + (collectionId is { } cid ? Leb128.GetLength(cid) : 0);
    }

    /// <summary>Writes the wire key into <paramref name="destination"/>; returns the bytes written.</summary>
    public static int Write(Span<byte> destination, string key, uint? collectionId = null)
    {
        var wireLength = GetWireLength(key, collectionId);
        if (destination.Length < wireLength)
            throw new ArgumentException($"destination holds {destination.Length} bytes; the key needs {wireLength}", nameof(destination));
        var offset = collectionId is { } cid ? Leb128.Write(destination, cid) : 0;
        offset += Encoding.UTF8.GetBytes(key, destination[offset..]);
        return offset;
    }

    /// <summary>Writes the wire key into the writer's memory and advances it; returns the bytes written.</summary>
    public static int Write(IBufferWriter<byte> writer, string key, uint? collectionId = null)
    {
        var wireLength = GetWireLength(key, collectionId);
        var written = Write(writer.GetSpan(wireLength), key, collectionId);
        writer.Advance(written);
        return written;
    }

    private static InvalidArgumentException KeyTooLong(string key, int limit) =>
        new($"document key '{TernException.Describe(key)}' is longer than {limit} UTF-8 bytes " +
            $"({Encoding.UTF8.GetByteCount(key)} bytes); it was not sent", key);
}
