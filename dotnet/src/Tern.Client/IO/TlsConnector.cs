using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using Tern.Client.Exceptions;
using Tern.Client.Security;

namespace Tern.Client.IO;

/// <summary>
/// Turns a connected socket into a TLS stream for couchbases://: the handshake with the cluster's
/// <see cref="TlsSettings"/> (and client certificate), and errors that say what failed. One per
/// cluster, shared by its connections; each handshake has its own validation state.
/// </summary>
internal sealed class TlsConnector(TlsSettings settings, ICertificateFactory? clientCertificates)
{
    public TlsSettings Settings { get; } = settings;

    /// <summary>Whether the connection logs in with a client certificate (then no SASL is sent).</summary>
    public bool SendsClientCertificate => clientCertificates is not null;

    /// <summary>Handshakes over <paramref name="socket"/> (which stays the caller's); throws the errors described on the class.</summary>
    public async Task<SslStream> AuthenticateAsync(Socket socket, string host, int port, CancellationToken cancellationToken)
    {
        var endpoint = host.Contains(':') ? $"[{host}]:{port}" : $"{host}:{port}";
        var check = new Validation(this, endpoint);
        var stream = new SslStream(new NetworkStream(socket, ownsSocket: false), leaveInnerStreamOpen: false);
        try
        {
            await stream.AuthenticateAsClientAsync(Options(host, check), cancellationToken).ConfigureAwait(false);
            return stream;
        }
        catch (Exception e) when (e is AuthenticationException or IOException)
        {
            await stream.DisposeAsync().ConfigureAwait(false);
            throw (Exception?)check.Refusal(e) ?? new TlsHandshakeException(
                $"the TLS handshake with {endpoint} failed: {Reason(e)}" +
                (SendsClientCertificate ? "" : "; if the server requires a client certificate, use a CertificateAuthenticator"), e);
        }
        catch
        {
            await stream.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// The same checks for the management port's HTTPS (SocketsHttpHandler.SslOptions): a refused
    /// certificate throws <see cref="CertificateValidationException"/> from the handshake, which the
    /// HTTP client's error carries as an inner exception.
    /// </summary>
    public SslClientAuthenticationOptions HttpOptions() => Options(null, null);

    private SslClientAuthenticationOptions Options(string? host, Validation? check)
    {
        var options = new SslClientAuthenticationOptions
        {
            // The name checked against the certificate, and SNI for names (not sent for addresses).
            // HTTP sets it per request, from the URI.
            TargetHost = host,
            EnabledSslProtocols = Settings.EnabledSslProtocols,
            CertificateRevocationCheckMode = Settings.EnableCertificateRevocation ? X509RevocationMode.Online : X509RevocationMode.NoCheck,
            RemoteCertificateValidationCallback = check is not null ? check.Validate : ValidateHttp,
            ClientCertificates = clientCertificates?.GetCertificates(),
        };
        if (Settings.TrustedServerCertificateFactory is { } trusted)
        {
            // Only the given CAs, not the system store: a certificate is trusted because the user said so.
            var policy = new X509ChainPolicy
            {
                TrustMode = X509ChainTrustMode.CustomRootTrust,
                RevocationMode = options.CertificateRevocationCheckMode,
            };
            policy.CustomTrustStore.AddRange(trusted.GetCertificates());
            options.CertificateChainPolicy = policy;
        }
        return options;
    }

    private bool ValidateHttp(object sender, X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors)
    {
        var check = new Validation(this, (sender as SslStream)?.TargetHostName ?? "?");
        return check.Validate(sender, certificate, chain, errors) ? true : throw check.Refusal(null)!;
    }

    private static string Reason(Exception e)
    {
        var reason = e.Message;
        for (var inner = e.InnerException; inner is not null; inner = inner.InnerException)
            reason += $" ({inner.Message})";
        return reason;
    }

    /// <summary>One handshake's certificate check: decides, and remembers why it refused. <paramref name="endpoint"/>: "host:port" or the host.</summary>
    private sealed class Validation(TlsConnector connector, string endpoint)
    {
        private string? _refusal;
        private string _subject = "";
        private SslPolicyErrors _errors;

        public bool Validate(object sender, X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors)
        {
            var settings = connector.Settings;
            if (settings.KvIgnoreRemoteCertificateNameMismatch)
                errors &= ~SslPolicyErrors.RemoteCertificateNameMismatch;
            _subject = certificate?.Subject ?? "(none)";
            _errors = errors;
            bool accepted;
            if (settings.KvCertificateValidationCallback is { } callback)
            {
                accepted = callback(sender, certificate, chain, errors);
                if (!accepted)
                    _refusal = $"the KvCertificateValidationCallback refused it ({Describe(errors, certificate, chain)})";
                return accepted;
            }
            accepted = errors == SslPolicyErrors.None;
            if (!accepted)
                _refusal = Describe(errors, certificate, chain);
            return accepted;
        }

        public CertificateValidationException? Refusal(Exception? handshakeError) =>
            _refusal is null
                ? null
                : new CertificateValidationException(
                    $"the TLS certificate of {endpoint} (subject '{_subject}') is not trusted: {_refusal}", endpoint, _subject, _errors,
                    handshakeError);

        private string Describe(SslPolicyErrors errors, X509Certificate? certificate, X509Chain? chain)
        {
            if (errors == SslPolicyErrors.None)
                return "no error";
            var parts = new List<string>();
            if (errors.HasFlag(SslPolicyErrors.RemoteCertificateNotAvailable))
                parts.Add("RemoteCertificateNotAvailable (the server sent no certificate)");
            if (errors.HasFlag(SslPolicyErrors.RemoteCertificateNameMismatch))
                parts.Add($"RemoteCertificateNameMismatch (it is for {NamesOf(certificate)}, not '{HostOf(endpoint)}'; " +
                          "set KvIgnoreRemoteCertificateNameMismatch to accept it)");
            if (errors.HasFlag(SslPolicyErrors.RemoteCertificateChainErrors))
            {
                var statuses = chain?.ChainStatus.Select(s => $"{s.Status}: {s.StatusInformation.Trim()}").Distinct() ?? [];
                var trust = connector.Settings.TrustedServerCertificateFactory is null ? "the system trust store" : "the trusted CAs given";
                parts.Add($"RemoteCertificateChainErrors against {trust} ({string.Join("; ", statuses)}); issuer '{(certificate?.Issuer ?? "?")}'");
            }
            return string.Join(", ", parts);
        }

        private static string NamesOf(X509Certificate? certificate)
        {
            if (certificate is not X509Certificate2 full)
                return "no name";
            var names = new List<string>();
            foreach (var extension in full.Extensions)
            {
                if (extension is X509SubjectAlternativeNameExtension san)
                {
                    names.AddRange(san.EnumerateDnsNames().Select(n => $"DNS:{n}"));
                    names.AddRange(san.EnumerateIPAddresses().Select(a => $"IP:{a}"));
                }
            }
            return names.Count > 0 ? string.Join(", ", names) : $"'{full.GetNameInfo(X509NameType.SimpleName, false)}'";
        }

        private static string HostOf(string endpoint)
        {
            if (endpoint.StartsWith('['))
                return endpoint[1..endpoint.IndexOf(']')];
            var colon = endpoint.LastIndexOf(':');
            return colon < 0 || endpoint.IndexOf(':') != colon ? endpoint : endpoint[..colon];
        }
    }
}
