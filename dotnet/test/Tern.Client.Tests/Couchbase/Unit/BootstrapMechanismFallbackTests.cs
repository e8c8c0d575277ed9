using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// The SDK guesses SCRAM-SHA512 before the server's list arrives; a server without it costs one
/// extra round trip with the best mechanism it offers, and later connections start with that one.
/// </summary>
public class BootstrapMechanismFallbackTests
{
    [Fact]
    public async Task AServerWithoutSha512CostsOneMoreRoundTripWithSha256()
    {
        await using var run = BootstrapRun.Start();
        var first = await run.Server.ReceiveAsync(4);
        Assert.Equal("SCRAM-SHA512", first[3].Key);
        await run.ReplyToDiscoveryAsync(first, mechanisms: "SCRAM-SHA256");
        await run.Server.ReplyAsync(first[3], ResponseStatus.AuthError);

        var retry = Assert.Single(await run.Server.ReceiveAsync(1));
        Assert.Equal((Opcode.SaslAuth, "SCRAM-SHA256"), (retry.Opcode, retry.Key));
        var scram = new ScramServer("SCRAM-SHA256", PeerReplies.Password);
        await run.Server.ReplyAsync(retry, ResponseStatus.AuthContinue, scram.Challenge(retry.Value));
        var second = await run.Server.ReceiveAsync(3);
        Assert.Equal([Opcode.SaslStep, Opcode.SelectBucket, Opcode.GetClusterConfig], second.Select(r => r.Opcode));
        Assert.Equal("SCRAM-SHA256", second[0].Key);
        var signature = scram.Sign(second[0].Value);
        Assert.True(scram.ProofValid, "the SCRAM-SHA256 proof did not verify");
        await run.Server.ReplyAsync(second[0], ResponseStatus.Success, signature);
        await run.Server.ReplyAsync(second[1], ResponseStatus.Success);
        await run.Server.ReplyAsync(second[2], ResponseStatus.Success, run.MapJson());

        var connection = await run.Opening;

        Assert.Equal((3L, 8L), (connection.SendCalls, connection.Requests));
        Assert.Single(run.Maps);
    }

    [Fact]
    public async Task TheNextConnectionStartsWithTheMechanismTheServerAgreedTo()
    {
        await using (var run = BootstrapRun.Start())
        {
            var first = await run.Server.ReceiveAsync(4);
            await run.ReplyToDiscoveryAsync(first, mechanisms: "SCRAM-SHA256");
            await run.Server.ReplyAsync(first[3], ResponseStatus.AuthError);
            var retry = Assert.Single(await run.Server.ReceiveAsync(1));
            var scram = new ScramServer("SCRAM-SHA256", PeerReplies.Password);
            await run.Server.ReplyAsync(retry, ResponseStatus.AuthContinue, scram.Challenge(retry.Value));
            var second = await run.Server.ReceiveAsync(3);
            await run.Server.ReplyAsync(second[0], ResponseStatus.Success, scram.Sign(second[0].Value));
            await run.Server.ReplyAsync(second[1], ResponseStatus.Success);
            await run.Server.ReplyAsync(second[2], ResponseStatus.Success, run.MapJson());
            await run.Opening;

            await using var next = BootstrapRun.Again(run);
            var nextFirst = await next.Server.ReceiveAsync(4);
            Assert.Equal((Opcode.SaslAuth, "SCRAM-SHA256"), (nextFirst[3].Opcode, nextFirst[3].Key));
        }
    }
}
