using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Numerics;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// The encoded request of one operation, owned by the (pooled) operation so that steady-state
/// encoding allocates nothing. The header is written last, once the body length is known:
/// callers reserve it, write framing extras, extras and key, let a transcoder append the value
/// through <see cref="IBufferWriter{T}"/>, then <see cref="Finish"/>. With framing extras the
/// request takes the alt layout (magic 0x08: byte 2 the framing extras' length, byte 3 the key's).
/// </summary>
public sealed class RequestBuffer : IBufferWriter<byte>
{
    private const int InitialSize = 512;
    private const int RetainedMaxSize = 16 * 1024;

    private byte[] _buffer = [];
    private int _written;
    private int _framingExtrasLength;
    private int _extrasLength;
    private int _keyLength;
    private int _keyPrefixLength;
    private ulong _requiredFeatures; // bit n: HelloFeature n

    public ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _written);

    /// <summary>True when the request carries framing extras: it goes out as an alt request (magic 0x08).</summary>
    public bool HasFramingExtras => _framingExtrasLength > 0;

    /// <summary>
    /// Marks the request as one that only a connection which negotiated <paramref name="feature"/>
    /// may carry (the connection fails it unsent otherwise). Framing extras require alt requests by
    /// themselves; <see cref="Begin(string, uint?, ReadOnlySpan{byte}, ReadOnlySpan{byte})"/> clears the marks.
    /// </summary>
    public void Require(HelloFeature feature)
    {
        Debug.Assert((ushort)feature < 64, "HELLO features fit in a 64-bit mask");
        _requiredFeatures |= 1UL << (ushort)feature;
    }

    /// <summary>The first feature this request requires that is not among <paramref name="negotiated"/>, or null.</summary>
    public HelloFeature? MissingFeature(IReadOnlySet<HelloFeature> negotiated)
    {
        for (var required = _requiredFeatures; required != 0; required &= required - 1)
        {
            var feature = (HelloFeature)BitOperations.TrailingZeroCount(required);
            if (!negotiated.Contains(feature))
                return feature;
        }
        return null;
    }

    /// <summary>The logical key bytes (no collection prefix): what locators hash.</summary>
    public ReadOnlySpan<byte> LogicalKey => _buffer.AsSpan(KeyOffset + _keyPrefixLength, _keyLength - _keyPrefixLength);

    private int KeyOffset => FrameHeader.Size + _framingExtrasLength + _extrasLength;

    /// <summary>
    /// Starts a request: reserves the header, writes the framing extras, the extras and the key
    /// (validated as it is encoded). Framing extras (at most 255 bytes) make it an alt request.
    /// </summary>
    public void Begin(string key, uint? collectionId, ReadOnlySpan<byte> extras, ReadOnlySpan<byte> framingExtras = default)
    {
        _written = 0;
        CheckFramingExtras(framingExtras);
        var keyOffset = FrameHeader.Size + framingExtras.Length + extras.Length;
        var span = GetSpan(keyOffset + KeyWriter.MaxWireLength);
        // The key first: it is the part that can be rejected, and then nothing is left to send.
        var keyLength = KeyWriter.Write(span[keyOffset..], key, collectionId);
        WriteExtras(span, framingExtras, extras);
        _keyLength = keyLength;
        _keyPrefixLength = collectionId is { } cid ? Leb128.GetLength(cid) : 0;
        CollectionId = collectionId;
        _written = keyOffset + keyLength;
    }

    /// <summary>Starts a request whose key is given as bytes (bootstrap commands, tests).</summary>
    public void Begin(ReadOnlySpan<byte> key, ReadOnlySpan<byte> extras, ReadOnlySpan<byte> framingExtras = default)
    {
        _written = 0;
        CheckFramingExtras(framingExtras);
        var keyOffset = FrameHeader.Size + framingExtras.Length + extras.Length;
        var span = GetSpan(keyOffset + key.Length);
        WriteExtras(span, framingExtras, extras);
        key.CopyTo(span[keyOffset..]);
        _keyLength = key.Length;
        _keyPrefixLength = 0;
        CollectionId = null;
        _written = keyOffset + key.Length;
    }

    private static void CheckFramingExtras(ReadOnlySpan<byte> framingExtras)
    {
        if (framingExtras.Length > byte.MaxValue)
            ThrowFramingExtrasTooLong(framingExtras.Length);
    }

    // Out of line, so that building the message costs Begin no stack.
    [DoesNotReturn]
    private static void ThrowFramingExtrasTooLong(int length) =>
        throw new ArgumentException($"framing extras hold at most 255 bytes, not {length}", "framingExtras");

    private void WriteExtras(Span<byte> span, ReadOnlySpan<byte> framingExtras, ReadOnlySpan<byte> extras)
    {
        // Most requests have no framing extras and many no extras: skip the copy call for those.
        if (!framingExtras.IsEmpty)
            framingExtras.CopyTo(span[FrameHeader.Size..]);
        if (!extras.IsEmpty)
            extras.CopyTo(span[(FrameHeader.Size + framingExtras.Length)..]);
        _framingExtrasLength = framingExtras.Length;
        _extrasLength = extras.Length;
        _requiredFeatures = 0;
        if (!framingExtras.IsEmpty)
            Require(HelloFeature.AltRequestSupport);
    }

    /// <summary>Overwrites a big-endian u32 in the extras, e.g. flags known only once the value is encoded.</summary>
    public void PatchExtras(int offset, uint value) =>
        BinaryPrimitives.WriteUInt32BigEndian(_buffer.AsSpan(FrameHeader.Size + _framingExtrasLength + offset, 4), value);

    /// <summary>Writes the header over the reserved space now that the body is complete.</summary>
    public void Finish(Opcode opcode, Datatype datatype, ulong cas)
    {
        var magic = HasFramingExtras ? Magic.AltRequest : Magic.Request;
        new FrameHeader((byte)magic, (byte)opcode, (byte)_framingExtrasLength, (ushort)_keyLength, (byte)_extrasLength,
            (byte)datatype, 0, (uint)(_written - FrameHeader.Size), 0, cas).Write(_buffer);
    }

    /// <summary>
    /// Rewrites the key's collection-id prefix, for a request sent again after its collection's id
    /// changed: the rest of the request moves when the prefix's length changes, and the header's key
    /// and body lengths follow (a request not yet finished gets them from <see cref="Finish"/>). Only
    /// for a request begun with a collection id; throws <see cref="InvalidArgumentException"/> when
    /// the key is too long for a named collection.
    /// </summary>
    /// <summary>The collection id the key is prefixed with; null when it has no prefix.</summary>
    public uint? CollectionId { get; private set; }

    public void ChangeCollectionPrefix(uint collectionId)
    {
        if (_keyPrefixLength == 0)
            throw new InvalidOperationException("the request's key has no collection prefix to change");
        var logicalLength = _keyLength - _keyPrefixLength;
        if (collectionId != 0 && logicalLength > KeyWriter.MaxKeyLengthInCollection)
            throw new InvalidArgumentException(
                $"document key '{Encoding.UTF8.GetString(LogicalKey)}' is longer than {KeyWriter.MaxKeyLengthInCollection} UTF-8 bytes " +
                $"({logicalLength} bytes), the limit in collection {collectionId}; it was not sent");
        var prefixLength = Leb128.GetLength(collectionId);
        var shift = prefixLength - _keyPrefixLength;
        if (shift > 0)
            Ensure(shift);
        var rest = KeyOffset + _keyPrefixLength;
        if (shift != 0)
            _buffer.AsSpan(rest, _written - rest).CopyTo(_buffer.AsSpan(rest + shift));
        Leb128.Write(_buffer.AsSpan(KeyOffset), collectionId);
        _keyPrefixLength = prefixLength;
        CollectionId = collectionId;
        _keyLength += shift;
        _written += shift;
        if (HasFramingExtras)
            _buffer[3] = (byte)_keyLength;
        else
            BinaryPrimitives.WriteUInt16BigEndian(_buffer.AsSpan(2), (ushort)_keyLength);
        BinaryPrimitives.WriteUInt32BigEndian(_buffer.AsSpan(8), (uint)(_written - FrameHeader.Size));
    }

    /// <summary>
    /// Copies the finished request to <paramref name="destination"/> (a connection's send buffer)
    /// with the connection's opaque and the vbucket filled in; the request itself keeps zeros, so a
    /// retry can copy it again to another connection.
    /// </summary>
    public void CopyTo(Span<byte> destination, uint opaque, ushort vbucket)
    {
        Written.CopyTo(destination);
        BinaryPrimitives.WriteUInt16BigEndian(destination[6..], vbucket);
        BinaryPrimitives.WriteUInt32BigEndian(destination[12..], opaque);
    }

    /// <summary>The value written after the key so far.</summary>
    public ReadOnlySpan<byte> Value => _buffer.AsSpan(KeyOffset + _keyLength, _written - KeyOffset - _keyLength);

    /// <summary>Replaces the value with <paramref name="value"/> (e.g. its compressed form); call before <see cref="Finish"/>.</summary>
    public void ReplaceValue(ReadOnlySpan<byte> value)
    {
        _written = KeyOffset + _keyLength;
        value.CopyTo(GetSpan(value.Length));
        _written += value.Length;
    }

    public void Advance(int count) => _written += count;

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _buffer.AsMemory(_written);
    }

    public Span<byte> GetSpan(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _buffer.AsSpan(_written);
    }

    /// <summary>Drops an oversized buffer so one huge value does not pin memory in the pool forever.</summary>
    public void Reset()
    {
        _written = 0;
        if (_buffer.Length > RetainedMaxSize)
        {
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = [];
        }
    }

    private void Ensure(int sizeHint)
    {
        var needed = _written + Math.Max(sizeHint, 1);
        if (needed <= _buffer.Length)
            return;
        var grown = ArrayPool<byte>.Shared.Rent(Math.Max(needed, Math.Max(InitialSize, _buffer.Length * 2)));
        _buffer.AsSpan(0, _written).CopyTo(grown);
        if (_buffer.Length > 0)
            ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = grown;
    }
}
