namespace Tern.Client.Transactions;

/// <summary>
/// One attempt's entry in an Active Transaction Record (<c>attempts.&lt;attempt id&gt;</c>): its state,
/// when it started (<c>tst</c>, the server's clock at the PENDING write), how long it may run
/// (<c>exp</c>, ms), the durability its writes use (<c>d</c>), and, once it commits or aborts, the
/// documents it staged (<c>ins</c>, <c>rep</c>, <c>rem</c>).
/// </summary>
internal sealed record AtrEntry(
    string AttemptId,
    string? TransactionId,
    AttemptState State,
    long? StartMs,
    long ExpiresAfterMs,
    DurabilityLevel? Durability,
    IReadOnlyList<DocId> Inserted,
    IReadOnlyList<DocId> Replaced,
    IReadOnlyList<DocId> Removed,
    ForwardCompat ForwardCompat)
{
    /// <summary>
    /// Whether the attempt has outlived its time by more than <paramref name="margin"/>, by the
    /// server's clock <paramref name="nowMs"/>. An entry without a start time counts as ancient,
    /// as the official SDKs read it.
    /// </summary>
    public bool HasExpired(long nowMs, TimeSpan margin)
    {
        var start = StartMs ?? 0;
        return nowMs > start && nowMs - start > ExpiresAfterMs + (long)margin.TotalMilliseconds;
    }
}

/// <summary>An ATR as cleanup reads it: every entry, and the server's clock (<c>$vbucket.HLC</c>) at the read.</summary>
internal sealed record AtrDocument(IReadOnlyList<AtrEntry> Entries, long NowMs)
{
    public AtrEntry? Find(string attemptId) => Entries.FirstOrDefault(entry => entry.AttemptId == attemptId);
}

/// <summary>How an ATR entry's <c>d</c> field spells a durability level.</summary>
internal static class DurabilityCodes
{
    public static string Code(DurabilityLevel level) => level switch
    {
        DurabilityLevel.None => "n",
        DurabilityLevel.Majority => "m",
        DurabilityLevel.MajorityAndPersistToActive => "pa",
        _ => "pm",
    };

    /// <summary>The level of a code; an unknown code reads as Majority, as the official SDKs read it.</summary>
    public static DurabilityLevel Parse(string code) => code switch
    {
        "n" => DurabilityLevel.None,
        "m" => DurabilityLevel.Majority,
        "pa" => DurabilityLevel.MajorityAndPersistToActive,
        "pm" => DurabilityLevel.PersistToMajority,
        _ => DurabilityLevel.Majority,
    };
}

/// <summary>
/// Reads the server's timestamps: a <c>${Mutation.CAS}</c> macro's expansion (<c>"0x"</c> and 16 hex
/// digits of the CAS's bytes in little-endian order; the CAS is the hybrid logical clock in ns)
/// and <c>$vbucket.HLC.now</c> (decimal seconds).
/// </summary>
internal static class ServerClock
{
    /// <summary>Milliseconds since the epoch of an expanded CAS macro; null when it is missing or malformed.</summary>
    public static long? MillisecondsOfMacroCas(string? text)
    {
        if (text is null || !text.StartsWith("0x", StringComparison.Ordinal) ||
            !ulong.TryParse(text.AsSpan(2), System.Globalization.NumberStyles.AllowHexSpecifier, null, out var swapped))
            return null;
        return (long)(System.Buffers.Binary.BinaryPrimitives.ReverseEndianness(swapped) / 1_000_000);
    }

    /// <summary>Milliseconds since the epoch of <c>$vbucket.HLC.now</c>; 0 when it is missing or malformed.</summary>
    public static long MillisecondsOfHlc(string? seconds) =>
        ulong.TryParse(seconds, System.Globalization.NumberStyles.None, null, out var value) ? (long)value * 1000 : 0;
}
