using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using Tern.Client.Exceptions;

namespace Tern.Client.Security;

/// <summary>
/// Makes <see cref="ICertificateFactory"/> instances (as the official .NET SDK's class of the same name):
/// from certificates in memory, from a PEM file of CA certificates, from a PEM certificate and key,
/// or from a PKCS#12 file. A file that cannot be read or parsed throws <see cref="InvalidArgumentException"/>
/// naming the file, when the factory is made (so a typo fails at start, not at the first handshake).
/// </summary>
public static class CertificateFactory
{
    /// <summary>These certificates, as given.</summary>
    public static ICertificateFactory FromCertificates(params X509Certificate2[] certificates)
    {
        ArgumentNullException.ThrowIfNull(certificates);
        return new Fixed([.. certificates]);
    }

    /// <summary>Every certificate of a PEM file (a CA, or a bundle of them): a trust anchor file such as ternd's ca.pem.</summary>
    public static ICertificateFactory FromPemFile(string path)
    {
        var certificates = new X509Certificate2Collection();
        Load(path, "a PEM file of certificates", () => certificates.ImportFromPemFile(path));
        if (certificates.Count == 0)
            throw new InvalidArgumentException($"'{path}' holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        return new Fixed(certificates);
    }

    /// <summary>A client certificate and its private key, each a PEM file (the key may also be in the certificate file).</summary>
    public static ICertificateFactory FromPemFiles(string certificatePath, string? keyPath = null)
    {
        X509Certificate2? certificate = null;
        Load(keyPath is null ? certificatePath : $"{certificatePath}' and '{keyPath}", "a PEM certificate with its private key",
            () => certificate = X509Certificate2.CreateFromPemFile(certificatePath, keyPath));
        return new Fixed([WithUsableKey(certificate!)]);
    }

    /// <summary>A PKCS#12 (.pfx/.p12) file with a client certificate and its key.</summary>
    public static ICertificateFactory GetCertificatesByPathAndPassword(string path, string? password)
    {
        X509Certificate2? certificate = null;
        Load(path, "a PKCS#12 file", () => certificate = X509CertificateLoader.LoadPkcs12FromFile(path, password));
        return new Fixed([certificate!]);
    }

    // A key loaded from PEM is ephemeral; some platforms refuse such a key in a TLS handshake, so
    // it goes through PKCS#12 once. On Linux this is cheap and harmless.
    private static X509Certificate2 WithUsableKey(X509Certificate2 certificate)
    {
        using (certificate)
            return X509CertificateLoader.LoadPkcs12(certificate.Export(X509ContentType.Pkcs12), null);
    }

    private static void Load(string path, string what, Action load)
    {
        try
        {
            load();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or CryptographicException or ArgumentException)
        {
            throw new InvalidArgumentException($"cannot load '{path}' as {what}: {e.Message}");
        }
    }

    private sealed class Fixed(X509Certificate2Collection certificates) : ICertificateFactory
    {
        public X509Certificate2Collection GetCertificates() => certificates;
    }
}
