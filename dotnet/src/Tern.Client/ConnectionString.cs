using Tern.Client.Exceptions;

namespace Tern.Client;

/// <summary>
/// A parsed connection string: "memcached://h1:11211,h2:11211" (a ketama pool of plain memcached
/// servers), "tern://host:port" (ternd nodes, classic protocol), "couchbase://host" (ternd or
/// Couchbase Server: authenticated, buckets, cluster map and vbucket routing; the hosts are only
/// seeds, the cluster map names the nodes) or "couchbases://host" (the same over TLS). Hosts
/// without a port get the scheme's default (<see cref="DefaultMemcachedPort"/>,
/// <see cref="DefaultTernPort"/>, which is also Couchbase's KV port, or <see cref="DefaultTlsPort"/>);
/// IPv6 literals go in brackets.
/// </summary>
public sealed record ConnectionString(string Scheme, IReadOnlyList<(string Host, int Port)> Nodes)
{
    /// <summary>memcached's port, the default of memcached:// hosts.</summary>
    public const int DefaultMemcachedPort = 11211;

    /// <summary>ternd's port (its --port default), the default of tern:// hosts.</summary>
    public const int DefaultTernPort = 11210;

    /// <summary>Couchbase's KV port over TLS (ternd's --tls-port default), the default of couchbases:// hosts.</summary>
    public const int DefaultTlsPort = 11207;

    /// <summary>The port of a host of <paramref name="scheme"/> ("memcached", "tern", "couchbase" or "couchbases") that names none.</summary>
    public static int DefaultPort(string scheme) => scheme switch
    {
        "memcached" => DefaultMemcachedPort,
        "couchbases" => DefaultTlsPort,
        _ => DefaultTernPort,
    };

    /// <summary>True for couchbase:// and couchbases://: bootstrap with HELLO, SASL and SELECT_BUCKET, route by the cluster map.</summary>
    public bool IsCouchbase => Scheme is "couchbase" or "couchbases";

    /// <summary>True for couchbases://: every connection is TLS.</summary>
    public bool IsTls => Scheme == "couchbases";

    public static ConnectionString Parse(string connectionString)
    {
        ArgumentNullException.ThrowIfNull(connectionString);
        var separator = connectionString.IndexOf("://", StringComparison.Ordinal);
        if (separator < 0)
            throw new InvalidArgumentException($"connection string '{connectionString}' lacks a scheme (couchbase://, couchbases://, memcached:// or tern://)");
        var scheme = connectionString[..separator].ToLowerInvariant();
        if (scheme is not ("memcached" or "tern" or "couchbase" or "couchbases"))
            throw new InvalidArgumentException($"connection string scheme '{scheme}' is not supported (use couchbase://, couchbases://, memcached:// or tern://)");
        var rest = connectionString[(separator + 3)..];
        var query = rest.IndexOfAny(['/', '?']);
        if (query >= 0)
            rest = rest[..query];
        var nodes = new List<(string, int)>();
        foreach (var part in rest.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            nodes.Add(ParseNode(part, DefaultPort(scheme), connectionString));
        if (nodes.Count == 0)
            throw new InvalidArgumentException($"connection string '{connectionString}' names no host");
        return new ConnectionString(scheme, nodes);
    }

    private static (string, int) ParseNode(string node, int defaultPort, string whole)
    {
        string host;
        string? port = null;
        if (node.StartsWith('['))
        {
            var close = node.IndexOf(']');
            if (close < 0)
                throw new InvalidArgumentException($"unterminated IPv6 literal in connection string '{whole}'");
            host = node[1..close];
            if (close + 1 < node.Length && node[close + 1] == ':')
                port = node[(close + 2)..];
        }
        else
        {
            var colon = node.LastIndexOf(':');
            host = colon < 0 ? node : node[..colon];
            port = colon < 0 ? null : node[(colon + 1)..];
        }
        if (port is null)
            return (host, defaultPort);
        if (!int.TryParse(port, out var number) || number is <= 0 or > 65535)
            throw new InvalidArgumentException($"bad port '{port}' in connection string '{whole}'");
        return (host, number);
    }
}
