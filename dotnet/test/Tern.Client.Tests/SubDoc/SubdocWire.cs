using System.Buffers.Binary;
using System.Text;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.SubDoc;

/// <summary>
/// The sub-document wire shapes, written out byte by byte from the protocol facts (not from the
/// SDK's encoder): lookup and mutation specs, and the server's answers to both.
/// </summary>
internal static class SubdocWire
{
    /// <summary>op u8, path flags u8, path length u16, path.</summary>
    public static byte[] LookupSpec(byte opcode, byte flags, string path)
    {
        var pathBytes = Encoding.UTF8.GetBytes(path);
        var spec = new byte[4 + pathBytes.Length];
        (spec[0], spec[1]) = (opcode, flags);
        BinaryPrimitives.WriteUInt16BigEndian(spec.AsSpan(2), (ushort)pathBytes.Length);
        pathBytes.CopyTo(spec, 4);
        return spec;
    }

    /// <summary>op u8, path flags u8, path length u16, value length u32, path, value.</summary>
    public static byte[] MutationSpec(byte opcode, byte flags, string path, string value = "")
    {
        var pathBytes = Encoding.UTF8.GetBytes(path);
        var valueBytes = Encoding.UTF8.GetBytes(value);
        var spec = new byte[8 + pathBytes.Length + valueBytes.Length];
        (spec[0], spec[1]) = (opcode, flags);
        BinaryPrimitives.WriteUInt16BigEndian(spec.AsSpan(2), (ushort)pathBytes.Length);
        BinaryPrimitives.WriteUInt32BigEndian(spec.AsSpan(4), (uint)valueBytes.Length);
        pathBytes.CopyTo(spec, 8);
        valueBytes.CopyTo(spec, 8 + pathBytes.Length);
        return spec;
    }

    /// <summary>A multi-lookup answer: per spec in wire order, status u16, value length u32, value.</summary>
    public static byte[] LookupAnswer(params (ResponseStatus Status, string Value)[] entries)
    {
        var body = new List<byte>();
        foreach (var (status, value) in entries)
        {
            var valueBytes = Encoding.UTF8.GetBytes(value);
            var header = new byte[6];
            BinaryPrimitives.WriteUInt16BigEndian(header, (ushort)status);
            BinaryPrimitives.WriteUInt32BigEndian(header.AsSpan(2), (uint)valueBytes.Length);
            body.AddRange(header);
            body.AddRange(valueBytes);
        }
        return [.. body];
    }

    /// <summary>A multi-mutation's success answer: per spec with a value, index u8, status u16, value length u32, value.</summary>
    public static byte[] MutationValues(params (byte WireIndex, string Value)[] entries)
    {
        var body = new List<byte>();
        foreach (var (index, value) in entries)
        {
            var valueBytes = Encoding.UTF8.GetBytes(value);
            var header = new byte[7];
            header[0] = index;
            BinaryPrimitives.WriteUInt32BigEndian(header.AsSpan(3), (uint)valueBytes.Length);
            body.AddRange(header);
            body.AddRange(valueBytes);
        }
        return [.. body];
    }

    /// <summary>A multi-mutation's failure answer (MultiPathFailure): the first failing spec's wire index u8 and status u16.</summary>
    public static byte[] MutationFailure(byte wireIndex, ResponseStatus status)
    {
        var body = new byte[3];
        body[0] = wireIndex;
        BinaryPrimitives.WriteUInt16BigEndian(body.AsSpan(1), (ushort)status);
        return body;
    }

    /// <summary>MutationSeqno's 16 bytes of answer extras: vbucket UUID u64, sequence number u64.</summary>
    public static byte[] TokenExtras(ulong uuid, ulong seqno)
    {
        var extras = new byte[16];
        BinaryPrimitives.WriteUInt64BigEndian(extras, uuid);
        BinaryPrimitives.WriteUInt64BigEndian(extras.AsSpan(8), seqno);
        return extras;
    }

    public static byte[] Concat(params byte[][] parts) => parts.SelectMany(p => p).ToArray();
}
