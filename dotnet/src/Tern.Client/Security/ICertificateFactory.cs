using System.Security.Cryptography.X509Certificates;

namespace Tern.Client.Security;

/// <summary>
/// Supplies certificates: the CAs a client trusts (<see cref="TlsSettings.TrustedServerCertificateFactory"/>)
/// or a client certificate with its private key (<see cref="CertificateAuthenticator"/>). Asked once per
/// TLS handshake, so a factory that reads files again picks up a renewed certificate.
/// </summary>
public interface ICertificateFactory
{
    X509Certificate2Collection GetCertificates();
}
