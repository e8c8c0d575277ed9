using System.Text.Json;

namespace Tern.Client.Couchbase;

/// <summary>
/// A bucket's cluster map (the JSON of GET_CLUSTER_CONFIG, of a NotMyVbucket answer, or pushed by
/// the server): which node holds the active copy of each vbucket. Maps are ordered by
/// (<see cref="Epoch"/>, <see cref="Revision"/>): a client keeps the newest it has seen.
/// Immutable and thread-safe.
/// </summary>
public sealed class ClusterMap
{
    /// <summary>What a serverList entry or hostname of "$HOST" stands for: the host the client connected to.</summary>
    public const string SeedHostPlaceholder = "$HOST";

    private readonly short[] _activeNodes;
    private readonly short[] _replicaNodes; // ReplicaCount per vbucket, in order
    private readonly string[] _capabilities;

    private ClusterMap(long epoch, long revision, string? bucketName, string? bucketUuid,
        ClusterNode[] nodes, (short[] Active, short[] Replicas, int ReplicaCount) chains, string[] capabilities, ManagementEndpoint[] management)
    {
        Management = management;
        Epoch = epoch;
        Revision = revision;
        BucketName = bucketName;
        BucketUuid = bucketUuid;
        Nodes = nodes;
        (_activeNodes, _replicaNodes, ReplicaCount) = chains;
        _capabilities = capabilities;
    }

    /// <summary>The map's epoch ("revEpoch"; 0 when the server sends none). A new epoch outranks any revision of an older one.</summary>
    public long Epoch { get; }

    /// <summary>The map's revision ("rev") within its epoch.</summary>
    public long Revision { get; }

    public string? BucketName { get; }

    public string? BucketUuid { get; }

    /// <summary>The data-service nodes, in the order of vBucketServerMap.serverList: vbucket map entries index into it.</summary>
    public IReadOnlyList<ClusterNode> Nodes { get; }

    /// <summary>The nodes whose management (HTTP) port answers, as the map lists them; empty: the service is not available.</summary>
    public IReadOnlyList<ManagementEndpoint> Management { get; }

    /// <summary>The number of vbuckets, a power of two (1024 on a Couchbase Server).</summary>
    public int VBucketCount => _activeNodes.Length;

    /// <summary>The index in <see cref="Nodes"/> of <paramref name="vbucket"/>'s active copy, or -1 while it has none.</summary>
    /// <exception cref="IndexOutOfRangeException"><paramref name="vbucket"/> is not below <see cref="VBucketCount"/>.</exception>
    public short ActiveNodeOf(int vbucket) => _activeNodes[vbucket];

    /// <summary>How many replicas each vbucket has (the longest vBucketMap entry, less its active copy).</summary>
    public int ReplicaCount { get; }

    /// <summary>The index in <see cref="Nodes"/> of <paramref name="vbucket"/>'s replica number <paramref name="replica"/> (from 0), or -1 while it has none.</summary>
    public short ReplicaNodeOf(int vbucket, int replica) =>
        replica < ReplicaCount ? _replicaNodes[vbucket * ReplicaCount + replica] : (short)-1;

    /// <summary>Whether "bucketCapabilities" lists <paramref name="capability"/> (case-sensitive, e.g. "collections").</summary>
    public bool HasCapability(string capability) => Array.IndexOf(_capabilities, capability) >= 0;

    /// <summary>Whether this map is newer than <paramref name="other"/>; every map is newer than null.</summary>
    public bool IsNewerThan(ClusterMap? other) => IsNewer(Epoch, Revision, other);

    /// <summary>
    /// Whether a map at (<paramref name="epoch"/>, <paramref name="revision"/>) is newer than
    /// <paramref name="current"/>, so that a pushed map's version can be checked before parsing it.
    /// </summary>
    public static bool IsNewer(long epoch, long revision, ClusterMap? current) =>
        current is null || epoch > current.Epoch || (epoch == current.Epoch && revision > current.Revision);

    /// <summary>
    /// Parses a bucket config. <paramref name="seedHost"/> replaces "$HOST", which a server writes
    /// for "the address you reached me at". With <paramref name="tls"/> each node's
    /// <see cref="ClusterNode.KvPort"/> is its TLS port (nodesExt "kvSSL"). Throws
    /// <see cref="FormatException"/> naming the problem when the JSON is malformed or cannot route
    /// keys (over TLS: a node without a TLS port).
    /// </summary>
    public static ClusterMap Parse(ReadOnlySpan<byte> json, string seedHost, bool tls = false)
    {
        ArgumentNullException.ThrowIfNull(seedHost);
        JsonDocument document;
        try
        {
            // JsonDocument.Parse takes memory, not a span; one copy per map is off the hot path.
            document = JsonDocument.Parse(json.ToArray());
        }
        catch (JsonException e)
        {
            throw new FormatException($"the cluster map is not valid JSON: {e.Message}", e);
        }
        using (document)
        {
            var root = document.RootElement;
            if (root.ValueKind != JsonValueKind.Object)
                throw new FormatException("the cluster map is not a JSON object");
            if (!root.TryGetProperty("vBucketServerMap", out var serverMap) || serverMap.ValueKind != JsonValueKind.Object)
                throw new FormatException("the cluster map has no vBucketServerMap object (not a vbucket bucket?)");
            if (serverMap.TryGetProperty("hashAlgorithm", out var hash)
                && (hash.ValueKind != JsonValueKind.String || hash.GetString() != "CRC"))
                throw new FormatException($"the cluster map's hashAlgorithm is {hash.GetRawText()}, not \"CRC\"");

            var host = UnbracketedHost(seedHost);
            var nodes = ReadServerList(serverMap, host);
            if (tls)
                nodes = TlsNodes(root, nodes, host);
            return new ClusterMap(
                OptionalLong(root, "revEpoch"),
                OptionalLong(root, "rev"),
                OptionalString(root, "name"),
                OptionalString(root, "uuid"),
                nodes,
                ReadChains(serverMap, nodes.Length),
                ReadCapabilities(root),
                ManagementEndpoints.Read(root, host, tls));
        }
    }

    private static ClusterNode[] ReadServerList(JsonElement serverMap, string seedHost)
    {
        if (!serverMap.TryGetProperty("serverList", out var list) || list.ValueKind != JsonValueKind.Array)
            throw new FormatException("the cluster map's vBucketServerMap has no serverList array");
        var nodes = new ClusterNode[list.GetArrayLength()];
        if (nodes.Length == 0)
            throw new FormatException("the cluster map's serverList is empty");
        var index = 0;
        foreach (var entry in list.EnumerateArray())
        {
            if (entry.ValueKind != JsonValueKind.String)
                throw new FormatException($"serverList entry {index} is not a string");
            nodes[index++] = ParseEndpoint(entry.GetString()!, seedHost);
        }
        return nodes;
    }

    /// <summary>"host:port", "[v6]:port" or "$HOST:port".</summary>
    private static ClusterNode ParseEndpoint(string endpoint, string seedHost)
    {
        string host;
        ReadOnlySpan<char> port;
        if (endpoint.StartsWith('['))
        {
            var close = endpoint.IndexOf(']');
            if (close < 0 || close + 1 >= endpoint.Length || endpoint[close + 1] != ':')
                throw new FormatException($"serverList entry \"{endpoint}\" is not [host]:port");
            host = endpoint[1..close];
            port = endpoint.AsSpan(close + 2);
        }
        else
        {
            var colon = endpoint.IndexOf(':');
            if (colon <= 0 || endpoint.IndexOf(':', colon + 1) >= 0)
                throw new FormatException($"serverList entry \"{endpoint}\" is not host:port (an IPv6 host needs brackets)");
            host = endpoint[..colon];
            port = endpoint.AsSpan(colon + 1);
        }
        if (host.Length == 0)
            throw new FormatException($"serverList entry \"{endpoint}\" has no host");
        if (!int.TryParse(port, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var number)
            || number is < 1 or > 65535)
            throw new FormatException($"serverList entry \"{endpoint}\" has no valid port");
        return new ClusterNode(host == SeedHostPlaceholder ? seedHost : host, number);
    }

    /// <summary>
    /// The same nodes at their TLS ports: serverList names a node by its plain KV port, nodesExt
    /// gives that node's "kv" and "kvSSL" (its order may differ from serverList's, so by host and port).
    /// </summary>
    private static ClusterNode[] TlsNodes(JsonElement root, ClusterNode[] nodes, string seedHost)
    {
        var tlsPorts = new Dictionary<(string, int), int>();
        if (root.TryGetProperty("nodesExt", out var nodesExt) && nodesExt.ValueKind == JsonValueKind.Array)
        {
            foreach (var node in nodesExt.EnumerateArray())
            {
                if (node.ValueKind != JsonValueKind.Object || !node.TryGetProperty("services", out var services)
                    || services.ValueKind != JsonValueKind.Object
                    || !services.TryGetProperty("kv", out var kv) || !kv.TryGetInt32(out var kvPort)
                    || !services.TryGetProperty("kvSSL", out var kvSsl) || !kvSsl.TryGetInt32(out var tlsPort))
                    continue;
                var host = node.TryGetProperty("hostname", out var name) && name.ValueKind == JsonValueKind.String ? name.GetString()! : "";
                host = host.Length == 0 || host == SeedHostPlaceholder ? seedHost : UnbracketedHost(host);
                tlsPorts[(host.ToLowerInvariant(), kvPort)] = tlsPort;
            }
        }
        var result = new ClusterNode[nodes.Length];
        for (var i = 0; i < nodes.Length; i++)
        {
            if (!tlsPorts.TryGetValue((nodes[i].Host.ToLowerInvariant(), nodes[i].KvPort), out var port) || port is < 1 or > 65535)
                throw new FormatException(
                    $"the cluster map gives node {nodes[i].Endpoint} no TLS port (nodesExt services.kvSSL): it does not serve couchbases://");
            result[i] = nodes[i] with { KvPort = port };
        }
        return result;
    }

    /// <summary>Each vbucket's chain from vBucketMap: its active node, and its replicas' (-1 for a copy without a node).</summary>
    private static (short[] Active, short[] Replicas, int ReplicaCount) ReadChains(JsonElement serverMap, int nodeCount)
    {
        if (!serverMap.TryGetProperty("vBucketMap", out var map) || map.ValueKind != JsonValueKind.Array)
            throw new FormatException("the cluster map's vBucketServerMap has no vBucketMap array");
        var count = map.GetArrayLength();
        // The vbucket travels as a u16 in request headers, and keys hash onto it by masking.
        if (count == 0 || count > 65536 || (count & (count - 1)) != 0)
            throw new FormatException($"the cluster map has {count} vbuckets, not a power of two in 1..65536");
        var replicaCount = 0;
        foreach (var chain in map.EnumerateArray())
            replicaCount = Math.Max(replicaCount, chain.ValueKind == JsonValueKind.Array ? chain.GetArrayLength() - 1 : 0);
        var active = new short[count];
        var replicas = new short[count * replicaCount];
        replicas.AsSpan().Fill(-1);
        var vbucket = 0;
        foreach (var chain in map.EnumerateArray())
        {
            if (chain.ValueKind != JsonValueKind.Array || chain.GetArrayLength() == 0)
                throw new FormatException($"vBucketMap entry {vbucket} is not a non-empty array");
            var position = 0;
            foreach (var node in chain.EnumerateArray())
            {
                // -1 is a copy that has no node at the moment (a failed-over active or a missing replica).
                if (node.ValueKind != JsonValueKind.Number || !node.TryGetInt32(out var nodeIndex)
                    || nodeIndex < -1 || nodeIndex >= nodeCount)
                    throw new FormatException(
                        $"vBucketMap entry {vbucket} names node {node.GetRawText()}, outside serverList's {nodeCount} nodes");
                if (position == 0)
                    active[vbucket] = (short)nodeIndex;
                else
                    replicas[vbucket * replicaCount + position - 1] = (short)nodeIndex;
                position++;
            }
            vbucket++;
        }
        return (active, replicas, replicaCount);
    }

    private static string[] ReadCapabilities(JsonElement root)
    {
        if (!root.TryGetProperty("bucketCapabilities", out var capabilities))
            return [];
        if (capabilities.ValueKind != JsonValueKind.Array)
            throw new FormatException("the cluster map's bucketCapabilities is not an array");
        var result = new List<string>(capabilities.GetArrayLength());
        foreach (var capability in capabilities.EnumerateArray())
        {
            if (capability.ValueKind != JsonValueKind.String)
                throw new FormatException("a bucketCapabilities entry is not a string");
            result.Add(capability.GetString()!);
        }
        return [.. result];
    }

    private static long OptionalLong(JsonElement root, string property)
    {
        if (!root.TryGetProperty(property, out var value))
            return 0;
        if (value.ValueKind != JsonValueKind.Number || !value.TryGetInt64(out var number))
            throw new FormatException($"the cluster map's \"{property}\" is not an integer");
        return number;
    }

    private static string? OptionalString(JsonElement root, string property)
    {
        if (!root.TryGetProperty(property, out var value) || value.ValueKind == JsonValueKind.Null)
            return null;
        if (value.ValueKind != JsonValueKind.String)
            throw new FormatException($"the cluster map's \"{property}\" is not a string");
        return value.GetString();
    }

    // A seed given as "[::1]" is stored as "::1", like every other IPv6 host.
    internal static string UnbracketedHost(string host) =>
        host.Length > 2 && host[0] == '[' && host[^1] == ']' ? host[1..^1] : host;
}
