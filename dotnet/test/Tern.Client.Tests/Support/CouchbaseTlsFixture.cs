using Tern.Client.Security;

namespace Tern.Client.Tests.Support;

/// <summary>
/// <see cref="CouchbaseFixture"/> over TLS: ternd from server/config/dev.toml serving the test CA's
/// certificate for localhost and 127.0.0.1 on a TLS port, accepting client certificates of the test
/// client CA (client_auth "enabled"), and a couchbases:// cluster that trusts the test CA.
/// </summary>
public sealed class CouchbaseTlsFixture : CouchbaseFixture
{
    public override string ConnectionString => Server.TlsConnectionString();

    /// <summary>The couchbase:// options, trusting the test CA (and only it).</summary>
    public static ClusterOptions TlsOptions(string trustedCa = "ca.pem") => Options() with
    {
        TlsSettings = new TlsSettings { TrustedServerCertificateFactory = CertificateFactory.FromPemFile(TestCertificates.File(trustedCa)) },
    };

    protected override Task<ServerProcess> StartServerAsync() =>
        ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath, tls: TestCertificates.Server("server", clientAuth: "enabled"));

    protected override ClusterOptions ClientOptions() => TlsOptions();
}
