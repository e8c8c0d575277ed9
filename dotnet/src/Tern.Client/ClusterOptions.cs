using System.Net.Security;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Tern.Client.IO;
using Tern.Client.Security;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>Settings of a <see cref="Cluster"/>; the defaults suit a LAN.</summary>
public sealed record ClusterOptions
{
    /// <summary>Default timeout of every key-value operation, from call to response.</summary>
    public TimeSpan KvTimeout { get; init; } = TimeSpan.FromSeconds(2.5);

    /// <summary>
    /// Default timeout of a mutation with a durability level, in place of <see cref="KvTimeout"/>:
    /// such a write waits for the disk (or the replicas), which takes longer. As the official SDKs.
    /// </summary>
    public TimeSpan KvDurabilityTimeout { get; init; } = TimeSpan.FromSeconds(10);

    public TimeSpan ConnectTimeout { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Default timeout of a bucket or collection manager call (management port), as the official SDKs.</summary>
    public TimeSpan ManagementTimeout { get; init; } = TimeSpan.FromSeconds(75);

    /// <summary>Connections opened to each node at start and kept open (reconnected with backoff).</summary>
    public int MinConnectionsPerNode { get; init; } = 1;

    /// <summary>More connections are opened, up to this, while every open one is half full.</summary>
    public int MaxConnectionsPerNode { get; init; } = 2;

    /// <summary>Operations one connection carries at once; past it callers wait (up to their timeout) for a slot.</summary>
    public int MaxInFlightPerConnection { get; init; } = 1024;

    /// <summary>How often each connection checks deadlines: timeouts fire within this of the deadline.</summary>
    public TimeSpan TimeoutSweepInterval { get; init; } = TimeSpan.FromMilliseconds(10);

    /// <summary>First wait after a failed connect; doubles per failure up to <see cref="ReconnectBackoffMax"/>.</summary>
    public TimeSpan ReconnectBackoffMin { get; init; } = TimeSpan.FromMilliseconds(50);

    public TimeSpan ReconnectBackoffMax { get; init; } = TimeSpan.FromSeconds(1);

    /// <summary>How often the summary of orphaned responses is logged (when there were any).</summary>
    public TimeSpan OrphanReportInterval { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>How many of the slowest orphans each summary names.</summary>
    public int OrphanSampleSize { get; init; } = 10;

    public ITypeTranscoder Transcoder { get; init; } = JsonTranscoder.Default;

    public ILoggerFactory LoggerFactory { get; init; } = NullLoggerFactory.Instance;

    /// <summary>
    /// The clock behind every timeout, reconnect backoff and orphan report. Tests give a fake one
    /// (FakeTimeProvider) to drive them without waiting.
    /// </summary>
    public TimeProvider TimeProvider { get; init; } = TimeProvider.System;

    /// <summary>User name for couchbase:// (SASL); ignored by memcached:// and tern://.</summary>
    public string? UserName { get; init; }

    public string? Password { get; init; }

    /// <summary>
    /// Who logs in, in place of <see cref="UserName"/> and <see cref="Password"/>: a
    /// <see cref="PasswordAuthenticator"/>, or a <see cref="CertificateAuthenticator"/> (couchbases://
    /// only), with which the server logs the connection in as the user its client certificate names.
    /// </summary>
    public IAuthenticator? Authenticator { get; init; }

    /// <summary>
    /// SASL PLAIN sends the password as it is: safe inside TLS only. Null (the default), as the
    /// official SDKs: PLAIN over couchbases://, SCRAM (SHA-512, SHA-256 or SHA-1, the strongest the
    /// server offers) over couchbase://. False: SCRAM even over TLS. True: PLAIN allowed over plain
    /// TCP too, where SCRAM is still preferred.
    /// </summary>
    public bool? EnablePlainAuthentication { get; init; }

    /// <summary>
    /// TLS for every KV connection: null (the default) follows the scheme (couchbases:// on,
    /// couchbase:// off). Ports come from the connection string either way: a couchbase:// host
    /// without one is 11210, so name the TLS port (or use couchbases://, whose default is 11207).
    /// </summary>
    public bool? EnableTls { get; init; }

    /// <summary>How couchbases:// checks the server's certificate (trusted CAs, name checks, a callback).</summary>
    public TlsSettings TlsSettings { get; init; } = new();

    /// <summary>
    /// <see cref="TlsSettings.KvIgnoreRemoteCertificateNameMismatch"/>, by the official SDK's older name.
    /// Set it after <see cref="TlsSettings"/> in an initializer, or it is overwritten.
    /// </summary>
    public bool KvIgnoreRemoteCertificateNameMismatch
    {
        get => TlsSettings.KvIgnoreRemoteCertificateNameMismatch;
        init => TlsSettings = TlsSettings with { KvIgnoreRemoteCertificateNameMismatch = value };
    }

    /// <summary>
    /// <see cref="TlsSettings.KvCertificateValidationCallback"/>, by the official SDK's older name.
    /// Set it after <see cref="TlsSettings"/> in an initializer, or it is overwritten.
    /// </summary>
    public RemoteCertificateValidationCallback? KvCertificateCallbackValidation
    {
        get => TlsSettings.KvCertificateValidationCallback;
        init => TlsSettings = TlsSettings with { KvCertificateValidationCallback = value };
    }

    /// <summary>A connection that has received nothing for this long sends a NOOP; no answer within <see cref="KvTimeout"/> declares the peer dead.</summary>
    public TimeSpan KeepAliveInterval { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>How often each bucket asks a node for a newer cluster map (besides the maps the server pushes).</summary>
    public TimeSpan ConfigPollInterval { get; init; } = TimeSpan.FromSeconds(2.5);

    /// <summary>Compress values with Snappy when the server negotiated it (couchbase://).</summary>
    public bool EnableCompression { get; init; } = true;

    /// <summary>Values shorter than this are sent as they are.</summary>
    public int CompressionMinSize { get; init; } = 32;

    /// <summary>A compressed value is sent only if it is at most this fraction of the original.</summary>
    public double CompressionMinRatio { get; init; } = 0.83;

    /// <summary>Bootstrap steps run on each new connection, in order, before it carries operations.</summary>
    public IReadOnlyList<IConnectionInitializer> ConnectionInitializers { get; init; } = [];

    /// <summary>How <see cref="Cluster.Transactions"/> runs transactions and cleans up after them (couchbase://).</summary>
    public Transactions.TransactionsConfig Transactions { get; init; } = new();
}
