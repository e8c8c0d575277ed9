using Tern.Client.Exceptions;

namespace Tern.Client;

/// <summary>
/// A parsed connection string: "memcached://h1:11211,h2:11211" (a ketama pool of plain memcached
/// servers) or "tern://host:port" (ternd nodes). Hosts without a port get the scheme's default;
/// IPv6 literals go in brackets.
/// </summary>
public sealed record ConnectionString(string Scheme, IReadOnlyList<(string Host, int Port)> Nodes)
{
    public const int DefaultPort = 11211;

    public static ConnectionString Parse(string connectionString)
    {
        ArgumentNullException.ThrowIfNull(connectionString);
        var separator = connectionString.IndexOf("://", StringComparison.Ordinal);
        if (separator < 0)
            throw new InvalidArgumentException($"connection string '{connectionString}' lacks a scheme (memcached:// or tern://)");
        var scheme = connectionString[..separator].ToLowerInvariant();
        if (scheme is not ("memcached" or "tern"))
            throw new InvalidArgumentException($"connection string scheme '{scheme}' is not supported (use memcached:// or tern://)");
        var rest = connectionString[(separator + 3)..];
        var query = rest.IndexOfAny(['/', '?']);
        if (query >= 0)
            rest = rest[..query];
        var nodes = new List<(string, int)>();
        foreach (var part in rest.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            nodes.Add(ParseNode(part, connectionString));
        if (nodes.Count == 0)
            throw new InvalidArgumentException($"connection string '{connectionString}' names no host");
        return new ConnectionString(scheme, nodes);
    }

    private static (string, int) ParseNode(string node, string whole)
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
            return (host, DefaultPort);
        if (!int.TryParse(port, out var number) || number is <= 0 or > 65535)
            throw new InvalidArgumentException($"bad port '{port}' in connection string '{whole}'");
        return (host, number);
    }
}
