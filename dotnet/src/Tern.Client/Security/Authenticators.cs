namespace Tern.Client.Security;

/// <summary>How a couchbase:// or couchbases:// client proves who it is: <see cref="PasswordAuthenticator"/> or <see cref="CertificateAuthenticator"/>.</summary>
public interface IAuthenticator;

/// <summary>
/// A user name and password, sent with SASL: PLAIN over TLS (as the official SDKs), SCRAM over
/// plain TCP (see <see cref="ClusterOptions.EnablePlainAuthentication"/>). The same as setting
/// <see cref="ClusterOptions.UserName"/> and <see cref="ClusterOptions.Password"/>.
/// </summary>
public sealed record PasswordAuthenticator(string UserName, string Password) : IAuthenticator;

/// <summary>
/// A client certificate (mutual TLS, couchbases:// only): the server logs the connection in as the
/// user the certificate names (ternd: its subject's CN), so no SASL is sent. The factory must give
/// a certificate with its private key, e.g. <c>CertificateFactory.FromPemFiles("client.pem", "client.key")</c>.
/// </summary>
public sealed class CertificateAuthenticator(ICertificateFactory certificateFactory) : IAuthenticator
{
    public ICertificateFactory CertificateFactory { get; } = certificateFactory ?? throw new ArgumentNullException(nameof(certificateFactory));
}
