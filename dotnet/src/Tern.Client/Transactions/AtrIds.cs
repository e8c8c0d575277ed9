using System.Globalization;
using System.Text;
using Tern.Client.Couchbase;

namespace Tern.Client.Transactions;

/// <summary>
/// The keys of the 1024 Active Transaction Records, one per vbucket, shared by every SDK: a client
/// that cleans up another's lost attempts finds them only under these names. Each is
/// <c>_txn:atr-&lt;vbucket&gt;-#&lt;hex&gt;</c> with the smallest hex suffix that makes the key hash to
/// its own vbucket (the official SDKs ship the table; computing it gives the same keys, which the
/// tests pin against entries of theirs). An attempt's ATR is the one of its first mutated key's
/// vbucket, so the ATR and that document usually share a node.
/// </summary>
internal static class AtrIds
{
    /// <summary>How many ATRs there are, whatever the bucket's vbucket count.</summary>
    public const int Count = 1024;

    private static readonly string?[] Ids = new string?[Count];

    /// <summary>The ATR of <paramref name="vbucket"/> (0 to 1023).</summary>
    public static string ForVBucket(int vbucket)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(vbucket);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(vbucket, Count);
        return Ids[vbucket] ??= Search(vbucket);
    }

    /// <summary>The ATR an attempt whose first mutated document is <paramref name="key"/> uses.</summary>
    public static string ForKey(string key) => ForVBucket(VBucketOf(key));

    /// <summary>The vbucket of <paramref name="key"/> among 1024, as the SDKs pick ATRs (whatever the bucket has).</summary>
    public static int VBucketOf(string key) => VBucketLocator.VBucketOf(Encoding.UTF8.GetBytes(key), Count);

    /// <summary>All 1024 ATR keys, in vbucket order: what lost-attempt cleanup reads.</summary>
    public static IEnumerable<string> All()
    {
        for (var vbucket = 0; vbucket < Count; vbucket++)
            yield return ForVBucket(vbucket);
    }

    private static string Search(int vbucket)
    {
        // About 1024 tries on average; the longest suffix in the table is five hex digits.
        for (var suffix = 0; ; suffix++)
        {
            var id = string.Create(CultureInfo.InvariantCulture, $"_txn:atr-{vbucket}-#{suffix:x}");
            if (VBucketOf(id) == vbucket)
                return id;
        }
    }
}
