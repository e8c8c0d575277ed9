using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Protocol;
using Tern.Client.Security;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// How a couchbases:// connection logs in: with a password, PLAIN first (inside TLS it hides
/// nothing SCRAM would, and the official SDKs send it), SCRAM when asked; with a client
/// certificate, no SASL at all. The bootstrap is played over plain TCP: TLS only chooses the credentials.
/// </summary>
public class BootstrapTlsLoginTests
{
    [Theory]
    [InlineData(true, null, true)]
    [InlineData(true, false, false)]
    [InlineData(false, null, false)]
    [InlineData(false, true, false)]
    public void PlainComesFirstOnlyInsideTlsUnlessSwitchedOff(bool tls, bool? enablePlain, bool prefersPlain)
    {
        var options = new ClusterOptions { UserName = "u", Password = "p", EnablePlainAuthentication = enablePlain };

        var credentials = Cluster.Credentials(options, tls);

        Assert.Equal(prefersPlain, credentials.PreferPlain);
        Assert.Equal(prefersPlain ? "PLAIN" : "SCRAM-SHA512", credentials.Preferred);
    }

    [Fact]
    public void APasswordAuthenticatorStandsForUserNameAndPassword()
    {
        var options = new ClusterOptions { Authenticator = new PasswordAuthenticator("ada", "secret") };

        var credentials = Cluster.Credentials(options, tls: true);

        Assert.Equal(("ada", "secret", false), (credentials.UserName, credentials.Password, credentials.ByCertificate));
    }

    [Fact]
    public async Task PlainInsideTlsLogsInInTheFirstWriteAndSelectsTheBucketInTheSecond()
    {
        await using var run = BootstrapRun.Start(credentials: new CouchbaseCredentials(PeerReplies.User, PeerReplies.Password,
            allowPlain: false, preferPlain: true));

        var first = await run.Server.ReceiveAsync(4);
        Assert.Equal((Opcode.SaslAuth, "PLAIN"), (first[3].Opcode, first[3].Key));
        Assert.Equal($"\0{PeerReplies.User}\0{PeerReplies.Password}", Encoding.UTF8.GetString(first[3].Value.Span));
        await run.ReplyToDiscoveryAsync(first, mechanisms: "PLAIN SCRAM-SHA512");
        await run.Server.ReplyAsync(first[3], ResponseStatus.Success);
        await SelectsTheBucketInTheSecondWriteAsync(run);
    }

    [Fact]
    public async Task AClientCertificateSendsNoSasl()
    {
        await using var run = BootstrapRun.Start(credentials: CouchbaseCredentials.Certificate());

        var first = await run.Server.ReceiveAsync(2);
        Assert.Equal([Opcode.Hello, Opcode.GetErrorMap], first.Select(r => r.Opcode));
        await run.Server.ReplyAsync(first[0], ResponseStatus.Success, PeerReplies.HelloValue(BootstrapRun.Acknowledged));
        await run.Server.ReplyAsync(first[1], ResponseStatus.Success, PeerReplies.ErrorMapJson);
        await SelectsTheBucketInTheSecondWriteAsync(run);
    }

    /// <summary>Logged in: the second write is SELECT_BUCKET and GET_CLUSTER_CONFIG alone, and the connection opens.</summary>
    private static async Task SelectsTheBucketInTheSecondWriteAsync(BootstrapRun run)
    {
        var second = await run.Server.ReceiveAsync(2);
        Assert.Equal([Opcode.SelectBucket, Opcode.GetClusterConfig], second.Select(r => r.Opcode));
        await run.Server.ReplyAsync(second[0], ResponseStatus.Success);
        await run.Server.ReplyAsync(second[1], ResponseStatus.Success, run.MapJson());

        await run.Opening;
        Assert.Single(run.Maps);
    }
}
