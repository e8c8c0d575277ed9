using System.IO.Hashing;
using System.Text;

namespace Tern.Client.Tests.Support;

/// <summary>
/// Which vbucket a key hashes to, computed here independently of the SDK (as Couchbase does:
/// CRC-32 of the key, bits 16..30, modulo the vbucket count), and which node of a
/// scripts/cluster.sh cluster owns it before any move.
/// </summary>
public static class VBuckets
{
    public const int Count = 1024;

    public static int Of(string key) =>
        (int)(((Crc32.HashToUInt32(Encoding.UTF8.GetBytes(key)) >> 16) & 0x7fff) % Count);

    /// <summary>cluster.sh's even map: vbucket i belongs to node floor(i*N/1024).</summary>
    public static int InitialOwner(int vbucket, int nodes) => vbucket * nodes / Count;

    /// <summary>Keys named from <paramref name="prefix"/> whose vbucket <paramref name="belongs"/>.</summary>
    public static IEnumerable<string> KeysWhere(string prefix, Func<int, bool> belongs) =>
        Enumerable.Range(0, int.MaxValue).Select(i => $"{prefix}-{i}").Where(k => belongs(Of(k)));
}
