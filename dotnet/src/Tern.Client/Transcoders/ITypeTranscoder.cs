using System.Buffers;
using Tern.Client.Protocol;

namespace Tern.Client.Transcoders;

/// <summary>Turns values into document bytes plus flags and datatype, and back.</summary>
public interface ITypeTranscoder
{
    void Encode<T>(IBufferWriter<byte> destination, T value, out uint flags, out Datatype datatype);

    T? Decode<T>(ReadOnlySpan<byte> content, uint flags, Datatype datatype);
}

/// <summary>The common flags (top byte of the 32-bit item flags) that say how a document was encoded.</summary>
public static class DocumentFlags
{
    public const uint Json = 0x02000000;
    public const uint Binary = 0x03000000;
    public const uint String = 0x04000000;
}
