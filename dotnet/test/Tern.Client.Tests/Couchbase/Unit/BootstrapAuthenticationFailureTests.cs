using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>Authentication that does not succeed ends the bootstrap with <see cref="AuthenticationFailureException"/>.</summary>
public class BootstrapAuthenticationFailureTests
{
    [Fact]
    public async Task ARefusedProofNamesTheUser()
    {
        await using var run = BootstrapRun.Start();
        var second = await run.ReachSecondWriteAsync(new ScramServer("SCRAM-SHA512", "another password"));

        // A server runs a connection's requests in order: after the refusal the others fail too.
        await run.Server.ReplyAsync(second[0], ResponseStatus.AuthError);
        await run.Server.ReplyAsync(second[1], ResponseStatus.AuthError);
        await run.Server.ReplyAsync(second[2], ResponseStatus.AuthError);

        var error = await Assert.ThrowsAsync<AuthenticationFailureException>(() => run.Opening);
        Assert.Equal($"authentication of user 'user' at {run.Endpoint} failed (SCRAM-SHA512, status 0x20): " +
            "wrong user name or password, or the user does not exist", error.Message);
    }

    [Fact]
    public async Task AServerWhoseSignatureDoesNotVerifyIsRefused()
    {
        await using var run = BootstrapRun.Start();
        var second = await run.ReachSecondWriteAsync(new ScramServer("SCRAM-SHA512", PeerReplies.Password));

        // A server that does not know the password cannot sign the exchange: it sends some other 64 bytes.
        var forged = "v=" + Convert.ToBase64String(new byte[64]);
        await run.Server.ReplyAsync(second[0], ResponseStatus.Success, forged);
        await run.Server.ReplyAsync(second[1], ResponseStatus.Success);
        await run.Server.ReplyAsync(second[2], ResponseStatus.Success, run.MapJson());

        var error = await Assert.ThrowsAsync<AuthenticationFailureException>(() => run.Opening);
        Assert.Equal($"the server at {run.Endpoint} failed to prove it knows the password of 'user' (SCRAM-SHA512): " +
            "its signature did not verify", error.Message);
        Assert.Empty(run.Maps);
    }

    [Fact]
    public async Task AServerOfferingOnlyPlainIsRefusedWhilePlainIsOff()
    {
        await using var run = BootstrapRun.Start(allowPlain: false);
        var first = await run.Server.ReceiveAsync(4);

        await run.ReplyToDiscoveryAsync(first, mechanisms: "PLAIN");
        await run.Server.ReplyAsync(first[3], ResponseStatus.AuthError);

        var error = await Assert.ThrowsAsync<AuthenticationFailureException>(() => run.Opening);
        Assert.Equal($"{run.Endpoint} offers SASL mechanisms [PLAIN], none of which this client uses " +
            "(SCRAM-SHA512/256/1; PLAIN is off: set ClusterOptions.EnablePlainAuthentication)", error.Message);
    }

    [Fact]
    public async Task AScramServerThatSkipsTheExchangeIsRefused()
    {
        await using var run = BootstrapRun.Start();
        var first = await run.Server.ReceiveAsync(4);
        await run.ReplyToDiscoveryAsync(first);

        // A SCRAM exchange cannot succeed in one step: the server never proved it knows the password.
        await run.Server.ReplyAsync(first[3], ResponseStatus.Success);
        var opening = run.Opening;
        var more = run.Server.ReceiveAsync(2);
        // Refused at once, the client closes the socket: then the server's read fails, and that is fine.
        if (await Task.WhenAny(opening, more) == more && more.IsCompletedSuccessfully)
        {
            var second = await more;
            await run.Server.ReplyAsync(second[0], ResponseStatus.Success);
            await run.Server.ReplyAsync(second[1], ResponseStatus.Success, run.MapJson());
        }

        await Assert.ThrowsAsync<AuthenticationFailureException>(() => opening);
    }
}
