using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;

namespace Tern.Client.Locators;

/// <summary>
/// Ketama consistent hashing exactly as libmemcached does it (weighted ketama, equal weights),
/// so keys land on the same servers as for C clients: each server gets 160 points on a 32-bit
/// ring, 4 per MD5 digest of "host:port-i" for i in 0..39 (libmemcached writes "host-i" when
/// the port is memcached's default, <see cref="ConnectionString.DefaultMemcachedPort"/>); a key
/// goes to the first point at or after the little-endian first 4 bytes of its own MD5. Adding or
/// removing a server moves only about 1/n of the keys.
/// </summary>
public sealed class KetamaLocator : IKeyLocator
{
    public const int PointsPerServer = 160;
    public const int PointsPerDigest = 4;

    private readonly uint[] _points;
    private readonly int[] _servers;

    /// <param name="servers">Host and port per node, in node-index order.</param>
    public KetamaLocator(IReadOnlyList<(string Host, int Port)> servers)
    {
        if (servers.Count == 0)
            throw new ArgumentException("a ketama ring needs at least one server", nameof(servers));
        NodeCount = servers.Count;
        var ring = new List<(uint Point, int Server)>(servers.Count * PointsPerServer);
        Span<byte> digest = stackalloc byte[MD5.HashSizeInBytes];
        for (var server = 0; server < servers.Count; server++)
        {
            for (var i = 0; i < PointsPerServer / PointsPerDigest; i++)
            {
                var (host, port) = servers[server];
                var point = port == ConnectionString.DefaultMemcachedPort ? $"{host}-{i}" : $"{host}:{port}-{i}";
                MD5.HashData(Encoding.UTF8.GetBytes(point), digest);
                for (var part = 0; part < PointsPerDigest; part++)
                    ring.Add((BinaryPrimitives.ReadUInt32LittleEndian(digest[(part * 4)..]), server));
            }
        }
        ring.Sort();
        _points = ring.ConvertAll(p => p.Point).ToArray();
        _servers = ring.ConvertAll(p => p.Server).ToArray();
    }

    public int NodeCount { get; }

    public KeyLocation Locate(ReadOnlySpan<byte> key)
    {
        if (NodeCount == 1)
            return new KeyLocation(0, 0);
        return new KeyLocation(_servers[PointIndex(Hash(key))], 0);
    }

    /// <summary>The key's position on the ring.</summary>
    public static uint Hash(ReadOnlySpan<byte> key)
    {
        Span<byte> digest = stackalloc byte[MD5.HashSizeInBytes];
        MD5.HashData(key, digest);
        return BinaryPrimitives.ReadUInt32LittleEndian(digest);
    }

    private int PointIndex(uint hash)
    {
        // First point >= hash, wrapping past the last point to the first.
        int low = 0, high = _points.Length;
        while (low < high)
        {
            var middle = low + (high - low) / 2;
            if (_points[middle] < hash)
                low = middle + 1;
            else
                high = middle;
        }
        return low == _points.Length ? 0 : low;
    }
}
