using System.Net.Security;
using Tern.Client.Exceptions;
using Tern.Client.Security;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>
/// couchbases:// against a real ternd serving TLS: how the server's certificate is checked (trusted
/// CAs, the system store, names, expiry, a callback), what the errors say, and client certificates.
/// </summary>
[Trait("Server", "ternd")]
public sealed class CouchbaseTlsTests(CouchbaseTlsFixture fixture) : IClassFixture<CouchbaseTlsFixture>
{
    // An address of this machine that reaches ternd (which listens on 127.0.0.1) but is not in its
    // certificate (DNS:localhost, IP:127.0.0.1): the IPv4-mapped IPv6 form of 127.0.0.1.
    private const string UnlistedAlias = "::ffff:127.0.0.1";

    private static string NewKey() => $"tls-{Guid.NewGuid():N}";

    private static async Task RoundTripAsync(Cluster cluster)
    {
        var bucket = await cluster.BucketAsync(CouchbaseFixture.BucketName);
        var key = NewKey();
        await bucket.DefaultCollection().UpsertAsync(key, new Address("tls", "1"));
        using var read = await bucket.DefaultCollection().GetAsync(key);
        Assert.Equal(new Address("tls", "1"), read.ContentAs<Address>());
    }

    [Fact]
    public async Task TrustingTheServersCaConnects()
    {
        await using var cluster = await Cluster.ConnectAsync(fixture.ConnectionString, CouchbaseTlsFixture.TlsOptions());

        await RoundTripAsync(cluster);
    }

    [Fact]
    public async Task ACertificateFromAnotherCaIsRefusedNamingTheHostTheSubjectAndTheReason()
    {
        var error = await Assert.ThrowsAsync<CertificateValidationException>(
            () => Cluster.ConnectAsync(fixture.ConnectionString, CouchbaseTlsFixture.TlsOptions(trustedCa: "other-ca.pem")));

        Assert.Contains($"127.0.0.1:{fixture.Server.TlsPort}", error.Message);
        Assert.Contains("subject 'CN=localhost", error.Message);
        Assert.Contains("RemoteCertificateChainErrors against the trusted CAs given", error.Message);
        Assert.Matches("UntrustedRoot|PartialChain", error.Message);
        Assert.Equal(SslPolicyErrors.RemoteCertificateChainErrors, error.PolicyErrors);
    }

    [Fact]
    public async Task WithoutTrustedCasTheSystemStoreDecidesAndDoesNotKnowTheTestCa()
    {
        var error = await Assert.ThrowsAsync<CertificateValidationException>(
            () => Cluster.ConnectAsync(fixture.ConnectionString, CouchbaseFixture.Options()));

        Assert.Contains("against the system trust store", error.Message);
    }

    [Fact]
    public async Task AHostTheCertificateDoesNotNameIsRefused()
    {
        var error = await Assert.ThrowsAsync<CertificateValidationException>(
            () => Cluster.ConnectAsync(AliasConnectionString(), CouchbaseTlsFixture.TlsOptions()));

        Assert.Equal(SslPolicyErrors.RemoteCertificateNameMismatch, error.PolicyErrors);
        Assert.Contains($"[{UnlistedAlias}]:{fixture.Server.TlsPort}", error.Message);
        Assert.Contains($"RemoteCertificateNameMismatch (it is for DNS:localhost, IP:127.0.0.1, not '{UnlistedAlias}'", error.Message);
        Assert.Contains("KvIgnoreRemoteCertificateNameMismatch", error.Message);
    }

    [Fact]
    public async Task KvIgnoreRemoteCertificateNameMismatchAcceptsThatHost()
    {
        var options = CouchbaseTlsFixture.TlsOptions() with { KvIgnoreRemoteCertificateNameMismatch = true };

        await using var cluster = await Cluster.ConnectAsync(AliasConnectionString(), options);

        await RoundTripAsync(cluster);
    }

    [Fact]
    public async Task KvIgnoreRemoteCertificateNameMismatchForgivesOnlyTheName()
    {
        var options = CouchbaseTlsFixture.TlsOptions(trustedCa: "other-ca.pem") with { KvIgnoreRemoteCertificateNameMismatch = true };

        var error = await Assert.ThrowsAsync<CertificateValidationException>(() => Cluster.ConnectAsync(AliasConnectionString(), options));

        Assert.Equal(SslPolicyErrors.RemoteCertificateChainErrors, error.PolicyErrors);
    }

    [Fact]
    public async Task AnExpiredCertificateIsRefused()
    {
        await using var expired = await ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath, managementPort: "none",
            tls: TestCertificates.Server("expired"));

        var error = await Assert.ThrowsAsync<CertificateValidationException>(
            () => Cluster.ConnectAsync(expired.TlsConnectionString(), CouchbaseTlsFixture.TlsOptions()));

        Assert.Contains($"127.0.0.1:{expired.TlsPort}", error.Message);
        Assert.Contains("NotTimeValid", error.Message);
    }

    [Fact]
    public async Task TheCallbackDecidesInsteadOfTheDefaultAndSeesTheErrors()
    {
        var seen = new List<SslPolicyErrors>();
        var refusing = CouchbaseTlsFixture.TlsOptions() with
        {
            KvCertificateCallbackValidation = (_, _, _, errors) =>
            {
                lock (seen)
                    seen.Add(errors);
                return false;
            },
        };
        // Another CA: the default would refuse, the callback accepts (it pins the subject).
        var accepting = CouchbaseTlsFixture.TlsOptions(trustedCa: "other-ca.pem") with
        {
            KvCertificateCallbackValidation = (_, certificate, _, errors) =>
                errors == SslPolicyErrors.RemoteCertificateChainErrors && certificate?.Subject == "CN=localhost",
        };

        var refused = await Assert.ThrowsAsync<CertificateValidationException>(() => Cluster.ConnectAsync(fixture.ConnectionString, refusing));
        await using var cluster = await Cluster.ConnectAsync(fixture.ConnectionString, accepting);

        Assert.Contains("the KvCertificateValidationCallback refused it (no error)", refused.Message);
        Assert.Equal([SslPolicyErrors.None], seen);
        await RoundTripAsync(cluster);
    }

    [Fact]
    public async Task TlsToThePlainPortFailsAsAHandshakeErrorNamingTheHost()
    {
        var error = await Assert.ThrowsAsync<NodeUnavailableException>(
            () => Cluster.ConnectAsync($"couchbases://127.0.0.1:{fixture.Server.Port}", CouchbaseTlsFixture.TlsOptions()));

        var handshake = Assert.IsType<TlsHandshakeException>(error.InnerException);
        Assert.Contains($"the TLS handshake with 127.0.0.1:{fixture.Server.Port} failed", handshake.Message);
    }

    [Fact]
    public async Task AClientCertificateLogsInAsTheUserItNames()
    {
        var options = ClientCertificateOptions("client-admin");

        await using var cluster = await Cluster.ConnectAsync(fixture.ConnectionString, options);

        await RoundTripAsync(cluster);
        await Poll.Until(() => fixture.Server.Log.Any(line => line.Contains("authenticated as Administrator by client certificate")),
            "ternd did not log the certificate's login as Administrator");
    }

    [Fact]
    public async Task AClientCertificateForAnUnknownUserIsRefused()
    {
        var options = ClientCertificateOptions("client-nobody");

        await Assert.ThrowsAnyAsync<TernException>(() => Cluster.ConnectAsync(fixture.ConnectionString, options));
        await Poll.Until(() => fixture.Server.Log.Any(line => line.Contains("names no user ('nobody')")),
            "ternd did not log the refused certificate");
    }

    [Fact]
    public async Task TheManagersUseTheManagementPortOverHttps()
    {
        var buckets = await fixture.Cluster.Buckets.GetAllBucketsAsync();

        Assert.Contains(CouchbaseFixture.BucketName, buckets.Keys);
        var map = fixture.Cluster.Topologies.Single().Map!;
        Assert.Equal([$"https://127.0.0.1:{fixture.Server.ManagementTlsPort}/"], map.Management.Select(m => m.BaseUri.ToString()));
    }

    [Fact]
    public async Task AClientCertificateFromACaTheServerDoesNotTrustEndsTheTlsSession()
    {
        var error = await Assert.ThrowsAsync<NodeUnavailableException>(
            () => Cluster.ConnectAsync(fixture.ConnectionString, ClientCertificateOptions("client-other")));

        // The reason is the server's alert ("unknown ca") when the client reads it first, or a
        // broken pipe when its write comes first: the server's log says which certificate failed.
        Assert.Contains($"the TLS session with 127.0.0.1:{fixture.Server.TlsPort} failed:", error.Message);
        await Poll.Until(() => fixture.Server.Log.Any(line => line.Contains("TLS handshake failed: certificate verify failed")),
            "ternd did not log the refused client certificate");
    }

    [Fact]
    public async Task ACertificateAuthenticatorNeedsTls()
    {
        var options = CouchbaseFixture.Options() with
        {
            Authenticator = new CertificateAuthenticator(CertificateFactory.FromPemFiles(TestCertificates.File("client-admin.pem"),
                TestCertificates.File("client-admin.key"))),
        };

        var error = await Assert.ThrowsAsync<InvalidArgumentException>(
            () => Cluster.ConnectAsync(fixture.Server.CouchbaseConnectionString, options));

        Assert.Contains("needs TLS: connect with couchbases://", error.Message);
    }

    [Fact]
    public async Task TlsIsForCouchbaseOnly()
    {
        var error = await Assert.ThrowsAsync<InvalidArgumentException>(
            () => Cluster.ConnectAsync(fixture.Server.ConnectionString, new ClusterOptions { EnableTls = true }));

        Assert.Contains("TLS needs couchbases://", error.Message);
    }

    /// <summary>couchbases:// options that trust the test CA and log in with the client certificate <paramref name="name"/> (.pem and .key).</summary>
    private static ClusterOptions ClientCertificateOptions(string name) => CouchbaseTlsFixture.TlsOptions() with
    {
        UserName = null,
        Password = null,
        Authenticator = new CertificateAuthenticator(
            CertificateFactory.FromPemFiles(TestCertificates.File($"{name}.pem"), TestCertificates.File($"{name}.key"))),
    };

    private string AliasConnectionString() => $"couchbases://[{UnlistedAlias}]:{fixture.Server.TlsPort}";
}
