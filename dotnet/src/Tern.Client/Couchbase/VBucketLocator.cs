using System.IO.Hashing;
using Tern.Client.Locators;

namespace Tern.Client.Couchbase;

/// <summary>
/// Couchbase key placement: a key's vbucket is bits 16..30 of its CRC-32 (the standard reflected
/// polynomial, as zlib computes it) modulo the vbucket count, and the cluster map names the
/// vbucket's active node. A NodeIndex of -1 means the vbucket has no active node right now:
/// the caller retries once a newer map arrives. Immutable; a new map makes a new locator.
/// </summary>
internal sealed class VBucketLocator(ClusterMap map) : IKeyLocator
{
    private readonly ClusterMap _map = map;

    public int NodeCount { get; } = map.Nodes.Count;

    public KeyLocation Locate(ReadOnlySpan<byte> key)
    {
        var vbucket = VBucketOf(key, _map.VBucketCount);
        return new KeyLocation(_map.ActiveNodeOf(vbucket), (ushort)vbucket);
    }

    public KeyLocation LocateVBucket(int vbucket) =>
        vbucket < _map.VBucketCount ? new(_map.ActiveNodeOf(vbucket), (ushort)vbucket) : new(-1, (ushort)vbucket);

    public KeyLocation LocateReplica(ReadOnlySpan<byte> key, int replica)
    {
        var vbucket = VBucketOf(key, _map.VBucketCount);
        return new KeyLocation(_map.ReplicaNodeOf(vbucket, replica), (ushort)vbucket);
    }

    /// <summary>The vbucket of <paramref name="key"/> among <paramref name="vbucketCount"/>.</summary>
    public static int VBucketOf(ReadOnlySpan<byte> key, int vbucketCount) =>
        (int)((Crc32.HashToUInt32(key) >> 16) & 0x7fff) % vbucketCount;
}
