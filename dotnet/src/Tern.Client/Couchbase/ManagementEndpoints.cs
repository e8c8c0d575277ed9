using System.Globalization;
using System.Text.Json;

namespace Tern.Client.Couchbase;

/// <summary>
/// A node's management (HTTP) port: <paramref name="Host"/> is a name or an IP address (IPv6 without
/// brackets); <paramref name="Tls"/> for the HTTPS port of couchbases:// ("mgmtSSL").
/// </summary>
public sealed record ManagementEndpoint(string Host, int Port, bool Tls = false)
{
    /// <summary>"http://host:port/" (https:// over TLS), with an IPv6 host in brackets.</summary>
    public Uri BaseUri =>
        new($"{(Tls ? "https" : "http")}://{(Host.Contains(':') ? $"[{Host}]" : Host)}:{Port.ToString(CultureInfo.InvariantCulture)}/");
}

/// <summary>
/// Reads where a cluster map says the management service answers: each nodesExt entry whose
/// services list "mgmt" ("mgmtSSL" over TLS; its hostname, or the seed host when it has none or
/// says "$HOST"); a map without nodesExt (an older server) names it in nodes[].hostname instead
/// (plain HTTP only). ternd lists "mgmt"
/// only while its port answers, so an empty answer means "service not available". Lenient on
/// purpose: a malformed entry is skipped, since keys must still route by the rest of the map.
/// </summary>
internal static class ManagementEndpoints
{
    public static ManagementEndpoint[] Read(JsonElement root, string seedHost, bool tls = false)
    {
        if (root.ValueKind != JsonValueKind.Object)
            return [];
        if (root.TryGetProperty("nodesExt", out var nodesExt) && nodesExt.ValueKind == JsonValueKind.Array)
            return FromNodesExt(nodesExt, seedHost, tls);
        if (!tls && root.TryGetProperty("nodes", out var nodes) && nodes.ValueKind == JsonValueKind.Array)
            return FromNodes(nodes, seedHost);
        return [];
    }

    private static ManagementEndpoint[] FromNodesExt(JsonElement nodesExt, string seedHost, bool tls)
    {
        var service = tls ? "mgmtSSL" : "mgmt";
        var found = new List<ManagementEndpoint>();
        foreach (var node in nodesExt.EnumerateArray())
        {
            if (node.ValueKind != JsonValueKind.Object
                || !node.TryGetProperty("services", out var services) || services.ValueKind != JsonValueKind.Object
                || !services.TryGetProperty(service, out var mgmt) || mgmt.ValueKind != JsonValueKind.Number
                || !mgmt.TryGetInt32(out var port) || port is < 1 or > 65535)
                continue;
            var host = node.TryGetProperty("hostname", out var hostname) && hostname.ValueKind == JsonValueKind.String
                ? hostname.GetString()!
                : "";
            found.Add(new ManagementEndpoint(Resolve(host, seedHost), port, tls));
        }
        return [.. found];
    }

    // nodes[].hostname is "host:port" (IPv6 in brackets), the port being the management one.
    private static ManagementEndpoint[] FromNodes(JsonElement nodes, string seedHost)
    {
        var found = new List<ManagementEndpoint>();
        foreach (var node in nodes.EnumerateArray())
        {
            if (node.ValueKind != JsonValueKind.Object || !node.TryGetProperty("hostname", out var hostname)
                || hostname.ValueKind != JsonValueKind.String)
                continue;
            var text = hostname.GetString()!;
            var colon = text.LastIndexOf(':');
            if (colon <= 0 || !int.TryParse(text.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var port)
                || port is < 1 or > 65535)
                continue;
            var host = text[..colon];
            if (host.StartsWith('[') && host.EndsWith(']'))
                host = host[1..^1];
            found.Add(new ManagementEndpoint(Resolve(host, seedHost), port));
        }
        return [.. found];
    }

    private static string Resolve(string host, string seedHost) =>
        host.Length == 0 || host == ClusterMap.SeedHostPlaceholder ? seedHost : host;
}
