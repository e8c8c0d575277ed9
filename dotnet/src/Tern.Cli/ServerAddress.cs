using Tern.Client;
using Tern.Client.Exceptions;

namespace Tern.Cli;

/// <summary>
/// The one server the CLI connects to, and how: `host:port` (ternd's classic protocol, tern://,
/// the port defaulting to ternd's) or a connection string, `couchbase://host[:port]`,
/// `couchbases://host[:port]` (TLS), `memcached://host[:port]` or `tern://host[:port]`, each with
/// the scheme's default port.
/// Prints as `host:port`, which is what messages name.
/// </summary>
public readonly record struct ServerAddress(string Host, int Port, string Scheme = ServerAddress.TernScheme)
{
    public const string TernScheme = "tern";

    public const string CouchbaseScheme = "couchbase";

    public const string CouchbaseTlsScheme = "couchbases";

    /// <summary>Where the CLI connects unless told otherwise: a local ternd on its default port.</summary>
    public static readonly ServerAddress Default = new("127.0.0.1", Client.ConnectionString.DefaultTernPort);

    /// <summary>couchbase:// or couchbases://: authenticated, with buckets and collections.</summary>
    public bool IsCouchbase => Scheme is CouchbaseScheme or CouchbaseTlsScheme;

    /// <summary>couchbases://: over TLS.</summary>
    public bool IsTls => Scheme == CouchbaseTlsScheme;

    /// <summary>What the SDK connects to: `scheme://host:port`.</summary>
    public string ConnectionString => $"{Scheme}://{this}";

    public static ServerAddress Parse(string text) =>
        text.Contains("://", StringComparison.Ordinal) ? ParseConnectionString(text) : ParseHostAndPort(text);

    private static ServerAddress ParseHostAndPort(string text)
    {
        var colon = text.LastIndexOf(':');
        if (colon < 0)
            return new ServerAddress(NonEmptyHost(text, text, "host:port"), Client.ConnectionString.DefaultTernPort);
        var portText = text[(colon + 1)..];
        if (!int.TryParse(portText, out var port) || port is < 1 or > 65535)
            throw new UsageException($"--server '{text}': port must be a number from 1 to 65535");
        return new ServerAddress(NonEmptyHost(text[..colon].Trim('[', ']'), text, "host:port"), port);
    }

    private static ServerAddress ParseConnectionString(string text)
    {
        Client.ConnectionString parsed;
        try
        {
            parsed = Client.ConnectionString.Parse(text);
        }
        catch (TernException e)
        {
            throw new UsageException($"--server: {e.Message}");
        }
        if (parsed.Nodes.Count != 1)
            throw new UsageException($"--server '{text}': name one host (over couchbase:// the server tells tern the rest of the cluster)");
        var (host, port) = parsed.Nodes[0];
        return new ServerAddress(NonEmptyHost(host, text, $"{parsed.Scheme}://host[:port]"), port, parsed.Scheme);
    }

    public override string ToString() => Host.Contains(':') ? $"[{Host}]:{Port}" : $"{Host}:{Port}";

    private static string NonEmptyHost(string host, string text, string expected) =>
        host.Length > 0 ? host : throw new UsageException($"--server '{text}': expected {expected}");
}
