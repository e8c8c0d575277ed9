using System.Buffers.Binary;

namespace Tern.Client.Protocol;

/// <summary>
/// Framing extras of alt-magic frames (0x08 requests, 0x18 responses): a run of frames, each a
/// byte (id &lt;&lt; 4 | length) then length bytes of data; an id or length nibble of 15 means an
/// escape byte follows holding the rest (value = 15 + byte). Requests carry durability and
/// preserve-TTL frames; responses may carry the server's processing time (Tracing).
/// </summary>
internal static class FramingExtras
{
    /// <summary>Room for every frame a request writes: durability with timeout (4) plus preserve-TTL (1).</summary>
    public const int MaxRequestLength = 8;

    private const int ServerDurationId = 0;
    private const int DurabilityId = 1;
    private const int PreserveTtlId = 5;
    private const int Escape = 15;

    /// <summary>
    /// The durability timeout a request carries: 90% of the operation's own. The server answers
    /// SyncWriteAmbiguous at its deadline, and that answer must reach the client before the client
    /// gives up on the operation; with equal timeouts the client would time out first, and the
    /// caller would never learn that the server had answered.
    /// </summary>
    public static TimeSpan DurabilityTimeout(TimeSpan operationTimeout) => operationTimeout * 0.9;

    /// <summary>
    /// Writes the DurabilityRequirement frame: the level, then the timeout as u16 big-endian
    /// milliseconds when given, clamped to 1..65534: 0 would mean "the server's default", and
    /// 0xffff is reserved by the server (no timeout), so the official SDKs never send it either.
    /// Returns the bytes written (2 or 4). <paramref name="level"/> must not be None.
    /// </summary>
    public static int WriteDurability(Span<byte> destination, DurabilityLevel level, TimeSpan? timeout)
    {
        if (level is <= DurabilityLevel.None or > DurabilityLevel.PersistToMajority)
            throw new ArgumentOutOfRangeException(nameof(level), level, "a durability frame needs a level above None");
        var length = timeout is null ? 1 : 3;
        if (destination.Length < 1 + length)
            throw new ArgumentException($"the durability frame needs {1 + length} bytes", nameof(destination));
        destination[0] = (byte)(DurabilityId << 4 | length);
        destination[1] = (byte)level;
        if (timeout is { } t)
        {
            var milliseconds = (ushort)Math.Clamp((long)t.TotalMilliseconds, 1, ushort.MaxValue - 1);
            BinaryPrimitives.WriteUInt16BigEndian(destination[2..], milliseconds);
        }
        return 1 + length;
    }

    /// <summary>Writes the PreserveTtl frame (no data): an update keeps the document's expiry. Returns 1.</summary>
    public static int WritePreserveTtl(Span<byte> destination)
    {
        if (destination.IsEmpty)
            throw new ArgumentException("the preserve-TTL frame needs 1 byte", nameof(destination));
        destination[0] = PreserveTtlId << 4;
        return 1;
    }

    /// <summary>
    /// Finds the server-duration frame (id 0, u16) in a response's framing extras and decodes it:
    /// microseconds = encoded^1.74 / 2, which spans about 0.5 µs to 2 minutes in two bytes.
    /// False when there is no such frame or the extras are malformed (a frame overruns the end).
    /// </summary>
    public static bool TryReadServerDuration(ReadOnlySpan<byte> framingExtras, out TimeSpan duration)
    {
        var position = 0;
        while (position < framingExtras.Length)
        {
            int id = framingExtras[position] >> 4, length = framingExtras[position] & 0x0f;
            position++;
            if (id == Escape)
            {
                if (position >= framingExtras.Length)
                    break;
                id += framingExtras[position++];
            }
            if (length == Escape)
            {
                if (position >= framingExtras.Length)
                    break;
                length += framingExtras[position++];
            }
            if (length > framingExtras.Length - position)
                break;
            if (id == ServerDurationId)
            {
                if (length != sizeof(ushort))
                    break;
                var encoded = BinaryPrimitives.ReadUInt16BigEndian(framingExtras[position..]);
                var microseconds = Math.Pow(encoded, 1.74) / 2;
                duration = TimeSpan.FromTicks((long)Math.Round(microseconds * TimeSpan.TicksPerMicrosecond));
                return true;
            }
            position += length;
        }
        duration = default;
        return false;
    }
}
