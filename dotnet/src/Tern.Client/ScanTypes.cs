using System.Text;

namespace Tern.Client;

/// <summary>What a <see cref="Collection.ScanAsync"/> reads: a <see cref="RangeScan"/>, a <see cref="PrefixScan"/> or a <see cref="SamplingScan"/>.</summary>
public interface IScanType
{
}

/// <summary>
/// One end of a <see cref="RangeScan"/>: a key, and whether the key itself is in the range. Keys
/// compare as their UTF-8 bytes; <see cref="Minimum"/> and <see cref="Maximum"/> stand for the
/// smallest and the largest key there can be.
/// </summary>
public sealed class ScanTerm
{
    private ScanTerm(byte[] bytes, bool exclusive)
    {
        Bytes = bytes;
        IsExclusive = exclusive;
    }

    /// <summary>The term includes <paramref name="key"/>.</summary>
    public static ScanTerm Inclusive(string key) => new(Encoding.UTF8.GetBytes(key), exclusive: false);

    /// <summary>The term stops short of <paramref name="key"/>.</summary>
    public static ScanTerm Exclusive(string key) => new(Encoding.UTF8.GetBytes(key), exclusive: true);

    /// <summary>Below every key (the byte 0x00, inclusive).</summary>
    public static ScanTerm Minimum() => new([0x00], exclusive: false);

    /// <summary>Above every key (the byte 0xff, which no UTF-8 key contains, inclusive).</summary>
    public static ScanTerm Maximum() => new([0xff], exclusive: false);

    internal byte[] Bytes { get; }

    public bool IsExclusive { get; }

    /// <summary>A term of raw bytes, which no string spells (a prefix followed by 0xff).</summary>
    internal static ScanTerm OfBytes(byte[] bytes, bool exclusive) => new(bytes, exclusive);

    public override string ToString() => $"{(IsExclusive ? "exclusive" : "inclusive")} '{Encoding.UTF8.GetString(Bytes)}'";
}

/// <summary>Every document whose key lies between two terms, each vbucket's in key order. Omitted terms: from the first key, to the last.</summary>
public class RangeScan(ScanTerm? from = null, ScanTerm? to = null) : IScanType
{
    public ScanTerm From { get; } = from ?? ScanTerm.Minimum();

    public ScanTerm To { get; } = to ?? ScanTerm.Maximum();
}

/// <summary>Every document whose key starts with <paramref name="prefix"/>: the range from the prefix up to the prefix followed by 0xff.</summary>
public sealed class PrefixScan(string prefix) : RangeScan(ScanTerm.Inclusive(prefix), PrefixEnd(prefix))
{
    public string Prefix { get; } = prefix;

    private static ScanTerm PrefixEnd(string prefix)
    {
        var bytes = Encoding.UTF8.GetBytes(prefix);
        Array.Resize(ref bytes, bytes.Length + 1);
        bytes[^1] = 0xff;
        return ScanTerm.OfBytes(bytes, exclusive: true);
    }
}

/// <summary>
/// A random sample of at most <see cref="Limit"/> documents. The server draws it from each vbucket
/// with <see cref="Seed"/>, and the vbuckets are visited in an order drawn from it too: the same
/// seed over the same documents gives the same sample, with one vbucket scanned at a time (with
/// more, their batches interleave, and which documents make the limit varies). Without a seed,
/// a random one.
/// </summary>
public sealed class SamplingScan : IScanType
{
    public SamplingScan(ulong limit) : this(limit, (ulong)Random.Shared.NextInt64(long.MaxValue))
    {
    }

    public SamplingScan(ulong limit, ulong seed)
    {
        if (limit == 0)
            throw new ArgumentOutOfRangeException(nameof(limit), "a sampling scan's limit must be at least 1");
        Limit = limit;
        Seed = seed;
    }

    public ulong Limit { get; }

    public ulong Seed { get; }
}
