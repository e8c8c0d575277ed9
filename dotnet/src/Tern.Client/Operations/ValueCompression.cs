using System.Buffers;
using Snappier;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Snappy on the wire (Snappier), when a bucket's connections negotiated it: values of at least
/// <see cref="ClusterOptions.CompressionMinSize"/> bytes are sent compressed when that saves
/// enough (<see cref="ClusterOptions.CompressionMinRatio"/>); answers with the Snappy datatype bit
/// are decompressed into a pooled buffer before the transcoder sees them.
/// </summary>
internal sealed class ValueCompression(int minSize, double minRatio)
{
    /// <summary>Compresses the request's value in place when worth it; returns the datatype to send.</summary>
    public Datatype Compress(RequestBuffer request, Datatype datatype)
    {
        var value = request.Value;
        if (value.Length < minSize)
            return datatype;
        var room = ArrayPool<byte>.Shared.Rent(Snappy.GetMaxCompressedLength(value.Length));
        try
        {
            var compressed = Snappy.Compress(value, room);
            if (compressed > value.Length * minRatio)
                return datatype;
            request.ReplaceValue(room.AsSpan(0, compressed));
            return datatype | Datatype.Snappy;
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(room);
        }
    }

    /// <summary>Decompresses an answer's value into a rented buffer (the caller returns it).</summary>
    public static (byte[] Content, int Length) Decompress(in ReadOnlySequence<byte> value, string key)
    {
        byte[]? flat = null;
        try
        {
            ReadOnlySpan<byte> compressed;
            if (value.IsSingleSegment)
            {
                compressed = value.FirstSpan;
            }
            else
            {
                flat = ArrayPool<byte>.Shared.Rent((int)value.Length);
                value.CopyTo(flat);
                compressed = flat.AsSpan(0, (int)value.Length);
            }
            var length = Snappy.GetUncompressedLength(compressed);
            var content = ArrayPool<byte>.Shared.Rent(Math.Max(length, 1));
            if (!Snappy.TryDecompress(compressed, content, out var written) || written != length)
            {
                ArrayPool<byte>.Shared.Return(content);
                throw new TernException($"the server sent key '{TernException.Describe(key)}' with a corrupt Snappy value", key);
            }
            return (content, length);
        }
        catch (InvalidDataException e)
        {
            throw new TernException($"the server sent key '{TernException.Describe(key)}' with a corrupt Snappy value: {e.Message}", key);
        }
        finally
        {
            if (flat is not null)
                ArrayPool<byte>.Shared.Return(flat);
        }
    }
}
