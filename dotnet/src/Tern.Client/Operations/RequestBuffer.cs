using System.Buffers;
using System.Buffers.Binary;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// The encoded request of one operation, owned by the (pooled) operation so that steady-state
/// encoding allocates nothing. The header is written last, once the body length is known:
/// callers reserve it, write extras and key, let a transcoder append the value through
/// <see cref="IBufferWriter{T}"/>, then <see cref="Finish"/>.
/// </summary>
public sealed class RequestBuffer : IBufferWriter<byte>
{
    private const int InitialSize = 512;
    private const int RetainedMaxSize = 16 * 1024;

    private byte[] _buffer = [];
    private int _written;
    private int _extrasLength;
    private int _keyLength;
    private int _keyPrefixLength;

    public ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _written);

    /// <summary>The logical key bytes (no collection prefix): what locators hash.</summary>
    public ReadOnlySpan<byte> LogicalKey =>
        _buffer.AsSpan(FrameHeader.Size + _extrasLength + _keyPrefixLength, _keyLength - _keyPrefixLength);

    /// <summary>Starts a request: reserves the header, writes the extras and the key (validated as it is encoded).</summary>
    public void Begin(string key, uint? collectionId, ReadOnlySpan<byte> extras)
    {
        _written = 0;
        var keyOffset = FrameHeader.Size + extras.Length;
        var span = GetSpan(keyOffset + KeyWriter.MaxWireLength);
        var keyLength = KeyWriter.Write(span[keyOffset..], key, collectionId);
        extras.CopyTo(span[FrameHeader.Size..]);
        _extrasLength = extras.Length;
        _keyLength = keyLength;
        _keyPrefixLength = collectionId is { } cid ? Leb128.GetLength(cid) : 0;
        _written = keyOffset + keyLength;
    }

    /// <summary>Starts a request whose key is given as bytes (bootstrap commands, tests).</summary>
    public void Begin(ReadOnlySpan<byte> key, ReadOnlySpan<byte> extras)
    {
        _written = 0;
        _extrasLength = extras.Length;
        _keyLength = key.Length;
        _keyPrefixLength = 0;
        var span = GetSpan(FrameHeader.Size + extras.Length + key.Length);
        extras.CopyTo(span[FrameHeader.Size..]);
        key.CopyTo(span[(FrameHeader.Size + extras.Length)..]);
        _written = FrameHeader.Size + extras.Length + key.Length;
    }

    /// <summary>Overwrites a big-endian u32 in the extras, e.g. flags known only once the value is encoded.</summary>
    public void PatchExtras(int offset, uint value) =>
        BinaryPrimitives.WriteUInt32BigEndian(_buffer.AsSpan(FrameHeader.Size + offset, 4), value);

    /// <summary>Writes the header over the reserved space now that the body is complete.</summary>
    public void Finish(Opcode opcode, Datatype datatype, ulong cas)
    {
        new FrameHeader((byte)Magic.Request, (byte)opcode, 0, (ushort)_keyLength, (byte)_extrasLength, (byte)datatype,
            0, (uint)(_written - FrameHeader.Size), 0, cas).Write(_buffer);
    }

    /// <summary>Copies the request to <paramref name="destination"/> with the connection's opaque and the vbucket filled in.</summary>
    public void CopyTo(Span<byte> destination, uint opaque, ushort vbucket)
    {
        Written.CopyTo(destination);
        BinaryPrimitives.WriteUInt16BigEndian(destination[6..], vbucket);
        BinaryPrimitives.WriteUInt32BigEndian(destination[12..], opaque);
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
