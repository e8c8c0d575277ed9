namespace Tern.Client.Locators;

/// <summary>Where a key's request goes: a node (index into the cluster's node list) and the vbucket to put in the header.</summary>
public readonly record struct KeyLocation(int NodeIndex, ushort VBucket);

/// <summary>
/// Maps a logical key (UTF-8, no collection prefix) to its node. Implementations are immutable
/// and thread-safe; a topology change installs a new locator. Ketama serves plain memcached
/// pools; a vbucket locator (CRC32 over a cluster map) will serve Couchbase-style clusters.
/// </summary>
public interface IKeyLocator
{
    int NodeCount { get; }

    KeyLocation Locate(ReadOnlySpan<byte> key);

    /// <summary>Where a vbucket's requests go; a node index of -1 when the locator has no such vbucket (no cluster map).</summary>
    KeyLocation LocateVBucket(int vbucket) => new(-1, (ushort)vbucket);

    /// <summary>Where a read of replica <paramref name="replica"/> (from 0) of the key's vbucket goes; a node index of -1 when there is none.</summary>
    KeyLocation LocateReplica(ReadOnlySpan<byte> key, int replica) => new(-1, 0);
}
