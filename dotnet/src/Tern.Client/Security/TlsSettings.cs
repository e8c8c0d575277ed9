using System.Net.Security;
using System.Security.Authentication;

namespace Tern.Client.Security;

/// <summary>
/// How a couchbases:// connection checks the server (the official .NET SDK's names). The server's
/// certificate must chain to <see cref="TrustedServerCertificateFactory"/>'s CAs when it is set, else
/// to the system's trust store; it must be valid now and name the host connected to, unless
/// <see cref="KvIgnoreRemoteCertificateNameMismatch"/>. There is no "accept everything": a
/// <see cref="KvCertificateValidationCallback"/> decides itself, and sees every error.
/// </summary>
public sealed record TlsSettings
{
    /// <summary>The CAs to trust instead of the system store (e.g. <c>CertificateFactory.FromPemFile("ca.pem")</c>).</summary>
    public ICertificateFactory? TrustedServerCertificateFactory { get; init; }

    /// <summary>
    /// Accept a certificate that does not name the host connected to (an address the certificate
    /// does not list). Only the name is forgiven: an untrusted or expired certificate still fails.
    /// </summary>
    public bool KvIgnoreRemoteCertificateNameMismatch { get; init; }

    /// <summary>
    /// Custom validation of the server's certificate, in place of the default decision: called with
    /// the chain built against the trusted CAs and its errors (without the name mismatch when
    /// <see cref="KvIgnoreRemoteCertificateNameMismatch"/> is set); true accepts the certificate.
    /// </summary>
    public RemoteCertificateValidationCallback? KvCertificateValidationCallback { get; init; }

    /// <summary>TLS 1.2 and 1.3; ternd refuses anything older.</summary>
    public SslProtocols EnabledSslProtocols { get; init; } = SslProtocols.Tls12 | SslProtocols.Tls13;

    /// <summary>Check the server certificate's revocation online (off by default, as the official SDKs).</summary>
    public bool EnableCertificateRevocation { get; init; }
}
