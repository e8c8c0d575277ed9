using Microsoft.Extensions.Logging;

namespace Tern.Client.IO;

/// <summary>What a connection needs from the cluster options (one object shared by every connection).</summary>
internal sealed record ConnectionSettings(
    int MaxInFlight,
    TimeSpan ConnectTimeout,
    TimeSpan SweepInterval,
    IReadOnlyList<IConnectionInitializer> Initializers,
    OrphanReporter Orphans,
    ILogger Logger,
    TimeProvider Time)
{
    /// <summary>
    /// A connection that has received nothing for this long sends a NOOP to learn whether its peer is
    /// still there. Zero or negative: never.
    /// </summary>
    public TimeSpan KeepAliveInterval { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>How long a keepalive NOOP may go unanswered before the connection is declared dead.</summary>
    public TimeSpan KeepAliveTimeout { get; init; } = TimeSpan.FromSeconds(2.5);

    /// <summary>
    /// Receives requests the server sends (magic 0x82, with Duplex negotiated), such as cluster-map
    /// change notifications. Runs on the connection's read loop: it must not block. Null: ignored.
    /// </summary>
    public Action<Connection, ServerRequest>? OnServerRequest { get; init; }

    /// <summary>couchbases://: every connection handshakes TLS with this before bootstrap. Null: plain TCP.</summary>
    public TlsConnector? Tls { get; init; }
}
