using System.Net.Security;

namespace Tern.Client.Exceptions;

/// <summary>
/// The server's TLS certificate was refused: not chained to a trusted CA, expired, for another
/// name, or refused by the validation callback. The message names the host, the certificate's
/// subject and the reason; retrying does not help, so connecting fails at once.
/// </summary>
public sealed class CertificateValidationException(string message, string host, string subject, SslPolicyErrors errors,
    Exception? inner = null) : TernException(message, null, inner)
{
    /// <summary>The host connected to ("host:port").</summary>
    public string Host { get; } = host;

    /// <summary>The certificate's subject, e.g. "CN=localhost".</summary>
    public string Subject { get; } = subject;

    /// <summary>What .NET found wrong with it (None when only the callback refused it).</summary>
    public SslPolicyErrors PolicyErrors { get; } = errors;
}

/// <summary>
/// The TLS handshake failed for a reason other than the server's certificate: no protocol version in
/// common, a server that needs a client certificate, a peer that does not speak TLS on that port...
/// The message names the host and the reason.
/// </summary>
public sealed class TlsHandshakeException(string message, Exception? inner = null) : TernException(message, null, inner);
