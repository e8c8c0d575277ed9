using System.Buffers;

namespace Tern.Client.SubDoc;

/// <summary>
/// A buffer writer over arrays rented from <see cref="ArrayPool{T}.Shared"/> whose content can be
/// handed over (<see cref="Detach"/>) to a result that returns the array when disposed.
/// </summary>
internal sealed class RentedBufferWriter : IBufferWriter<byte>
{
    private const int InitialSize = 256;

    private byte[] _buffer = ArrayPool<byte>.Shared.Rent(InitialSize);
    private int _written;

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

    /// <summary>The rented array and how much of it is written; the writer must not be used afterwards.</summary>
    public (byte[] Buffer, int Length) Detach()
    {
        var detached = (_buffer, _written);
        _buffer = [];
        _written = 0;
        return detached;
    }

    private void Ensure(int sizeHint)
    {
        var needed = _written + Math.Max(sizeHint, 1);
        if (needed <= _buffer.Length)
            return;
        var grown = ArrayPool<byte>.Shared.Rent(Math.Max(needed, _buffer.Length * 2));
        _buffer.AsSpan(0, _written).CopyTo(grown);
        ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = grown;
    }
}
