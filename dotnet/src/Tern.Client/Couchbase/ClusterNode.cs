namespace Tern.Client.Couchbase;

/// <summary>
/// A node of a cluster map, as its data service is reached: <paramref name="Host"/> is a name or
/// an IP address (IPv6 without brackets), <paramref name="KvPort"/> the memcached-protocol port.
/// </summary>
public sealed record ClusterNode(string Host, int KvPort)
{
    /// <summary>"host:port", with an IPv6 host in brackets ("[::1]:11210").</summary>
    public string Endpoint => Host.Contains(':') ? $"[{Host}]:{KvPort}" : $"{Host}:{KvPort}";
}
