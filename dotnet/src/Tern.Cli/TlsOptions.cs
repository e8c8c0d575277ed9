using System.Net.Security;
using Tern.Client;
using Tern.Client.IO;
using Tern.Client.Security;

namespace Tern.Cli;

/// <summary>
/// How the CLI checks a couchbases:// server and proves who it is: `--cacert FILE` (the CAs to
/// trust instead of the system store), `--cert FILE` with `--key FILE` (a client certificate,
/// which logs in as its user: no -u/-p), `--no-verify` (no check at all, with a warning on
/// standard error). Only with couchbases://.
/// </summary>
public sealed record TlsOptions(string? CaFile, string? CertificateFile, string? KeyFile, bool NoVerify)
{
    /// <summary>What standard error says before a --no-verify run.</summary>
    public const string NoVerifyWarning =
        "tern: warning: --no-verify: the server's TLS certificate is not checked, so anyone on the network path " +
        "can pose as the server and read the password; use --cacert FILE instead";

    /// <summary>The TLS options of <paramref name="args"/> for <paramref name="server"/>; null over plain TCP, where naming one is a usage error.</summary>
    public static TlsOptions? Resolve(CliArguments args, ServerAddress server)
    {
        var options = new TlsOptions(args.Option("cacert"), args.Option("cert"), args.Option("key"), args.Has("no-verify"));
        var named = new[] { ("--cacert", options.CaFile is not null), ("--cert", options.CertificateFile is not null),
            ("--key", options.KeyFile is not null), ("--no-verify", options.NoVerify) }.Where(o => o.Item2).Select(o => o.Item1).ToArray();
        if (!server.IsTls)
        {
            if (named.Length > 0)
                throw new UsageException($"{string.Join(", ", named)} need a couchbases:// server (TLS); {server.Scheme}:// is plain TCP");
            return null;
        }
        if (options.NoVerify && options.CaFile is not null)
            throw new UsageException("--no-verify and --cacert contradict each other: give one");
        if (options.KeyFile is not null && options.CertificateFile is null)
            throw new UsageException("--key needs --cert (the client certificate it belongs to)");
        return options;
    }

    /// <summary>A client certificate logs in: no user name or password is needed.</summary>
    public bool LogsInByCertificate => CertificateFile is not null;

    /// <summary><paramref name="options"/> with these settings (files are read here: a bad one is a usage error naming it).</summary>
    public ClusterOptions ApplyTo(ClusterOptions options) => options with
    {
        TlsSettings = Settings(),
        Authenticator = LogsInByCertificate ? new CertificateAuthenticator(ClientCertificate()) : options.Authenticator,
    };

    /// <summary>The SDK's TLS handshake with these settings, for the commands that speak over their own socket.</summary>
    internal TlsConnector Connector() => new(Settings(), LogsInByCertificate ? ClientCertificate() : null);

    private TlsSettings Settings() => new()
    {
        TrustedServerCertificateFactory = CaFile is null ? null : CertificateFactory.FromPemFile(CaFile),
        // The user asked for no check, and was warned: the SDK itself has no such setting.
        KvCertificateValidationCallback = NoVerify ? AcceptAny : null,
    };

    private ICertificateFactory ClientCertificate() => CertificateFactory.FromPemFiles(CertificateFile!, KeyFile);

    private static bool AcceptAny(object sender, System.Security.Cryptography.X509Certificates.X509Certificate? certificate,
        System.Security.Cryptography.X509Certificates.X509Chain? chain, SslPolicyErrors errors) => true;
}
