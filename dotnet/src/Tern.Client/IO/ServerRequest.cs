using System.Buffers;
using System.Buffers.Binary;
using Tern.Client.Protocol;

namespace Tern.Client.IO;

/// <summary>
/// A request the server sent the client (magic 0x82, once Duplex is negotiated), copied out of the
/// receive buffer. Nothing is sent back. Couchbase pushes cluster maps this way
/// (<see cref="ClustermapChangeNotification"/>).
/// </summary>
public sealed record ServerRequest(byte Opcode, byte[] Key, byte[] Extras, byte[] Value, byte Datatype)
{
    /// <summary>
    /// A new cluster map: key = bucket name (empty for the global map), extras = epoch and revision
    /// (i64 big-endian each), value = the map's JSON, or empty when the server sends only the version.
    /// </summary>
    public const byte ClustermapChangeNotification = (byte)ServerOpcode.ClustermapChangeNotification;

    /// <summary>The epoch and revision of a <see cref="ClustermapChangeNotification"/>; false when the extras are too short.</summary>
    public bool TryReadMapVersion(out long epoch, out long revision)
    {
        epoch = revision = 0;
        if (Extras.Length < 16)
            return false;
        epoch = BinaryPrimitives.ReadInt64BigEndian(Extras);
        revision = BinaryPrimitives.ReadInt64BigEndian(Extras.AsSpan(8));
        return true;
    }

    /// <summary>Copies a decoded frame's parts (the receive buffer is reused once the read loop moves on).</summary>
    internal static ServerRequest Copy(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        var extrasAt = header.FramingExtrasLength;
        var keyAt = extrasAt + header.ExtrasLength;
        var valueAt = keyAt + header.KeyLength;
        return new ServerRequest(header.Opcode,
            body.Slice(keyAt, header.KeyLength).ToArray(),
            body.Slice(extrasAt, header.ExtrasLength).ToArray(),
            body.Slice(valueAt).ToArray(),
            header.Datatype);
    }
}
