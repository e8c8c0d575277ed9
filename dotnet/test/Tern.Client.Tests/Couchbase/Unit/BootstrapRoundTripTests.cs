using Tern.Client.Couchbase;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// A healthy couchbase:// bootstrap: two socket writes (HELLO, GET_ERROR_MAP, SASL_LIST_MECHS,
/// SASL_AUTH; then SASL_STEP, SELECT_BUCKET, GET_CLUSTER_CONFIG), a SCRAM-SHA512 exchange the fake
/// server verifies with its own math, and the negotiated state installed on the connection.
/// </summary>
public class BootstrapRoundTripTests
{
    private static readonly HelloFeature[] Requested =
    [
        HelloFeature.TcpNoDelay, HelloFeature.MutationSeqno, HelloFeature.Xattr, HelloFeature.Xerror, HelloFeature.SelectBucket,
        HelloFeature.Snappy, HelloFeature.Json, HelloFeature.Duplex, HelloFeature.ClustermapChangeNotification,
        HelloFeature.Tracing, HelloFeature.AltRequestSupport, HelloFeature.SyncReplication,
        HelloFeature.Collections, HelloFeature.PreserveTtl, HelloFeature.SubdocCreateAsDeleted, HelloFeature.SubdocBinaryXattr,
    ];

    [Fact]
    public async Task TheFirstWriteCarriesDiscoveryAndTheScramClientFirstMessage()
    {
        await using var run = BootstrapRun.Start();

        var first = await run.Server.ReceiveAsync(4);

        Assert.Equal([Opcode.Hello, Opcode.GetErrorMap, Opcode.SaslListMechs, Opcode.SaslAuth], first.Select(r => r.Opcode));
        Assert.Equal(Requested, PeerReplies.Features(first[0].Value));
        Assert.StartsWith("{\"a\":\"tern-dotnet/", first[0].Key);
        Assert.Equal(new byte[] { 0, 2 }, first[1].Value.ToArray()); // error map version 2
        Assert.Equal("SCRAM-SHA512", first[3].Key);
        Assert.Matches("^n,,n=user,r=[A-Za-z0-9+/=]{16,}$", PeerReplies.Text(first[3].Value));
    }

    [Fact]
    public async Task TheSecondWriteCarriesTheProofTheBucketAndTheMapRequest()
    {
        await using var run = BootstrapRun.Start();
        var scram = new ScramServer("SCRAM-SHA512", PeerReplies.Password);
        var first = await run.Server.ReceiveAsync(4);
        await run.ReplyToDiscoveryAsync(first);
        await run.Server.ReplyAsync(first[3], ResponseStatus.AuthContinue, scram.Challenge(first[3].Value));

        var second = await run.Server.ReceiveAsync(3);
        Assert.Equal([Opcode.SaslStep, Opcode.SelectBucket, Opcode.GetClusterConfig], second.Select(r => r.Opcode));
        Assert.Equal("SCRAM-SHA512", second[0].Key);
        var proof = scram.Sign(second[0].Value);
        Assert.True(scram.ProofValid, "the client's SCRAM proof did not verify against the password");
        Assert.Equal(PeerReplies.User, scram.UserName);
        Assert.Equal(BootstrapRun.Bucket, second[1].Key);
        await run.Server.ReplyAsync(second[0], ResponseStatus.Success, proof);
        await run.Server.ReplyAsync(second[1], ResponseStatus.Success);
        await run.Server.ReplyAsync(second[2], ResponseStatus.Success, run.MapJson(revision: 3));
        var connection = await run.Opening;

        // One socket send per round trip, and nothing else sent.
        Assert.Equal((2L, 7L), (connection.SendCalls, connection.Requests));
    }

    [Fact]
    public async Task TheConnectionKeepsWhatTheServerAcknowledgedAndTheMapIsHandedOver()
    {
        await using var run = BootstrapRun.Start();
        var scram = new ScramServer("SCRAM-SHA512", PeerReplies.Password);
        var first = await run.Server.ReceiveAsync(4);
        await run.ReplyToDiscoveryAsync(first);
        await run.Server.ReplyAsync(first[3], ResponseStatus.AuthContinue, scram.Challenge(first[3].Value));
        var second = await run.Server.ReceiveAsync(3);
        await run.Server.ReplyAsync(second[0], ResponseStatus.Success, scram.Sign(second[0].Value));
        await run.Server.ReplyAsync(second[1], ResponseStatus.Success);
        await run.Server.ReplyAsync(second[2], ResponseStatus.Success, run.MapJson(revision: 3));

        var connection = await run.Opening;

        var features = connection.Features;
        Assert.Equal(BootstrapRun.Acknowledged.Order(), features.Negotiated.Order());
        Assert.Equal(BootstrapRun.Bucket, features.Bucket);
        Assert.Equal(7, features.ErrorMap.Revision); // the server's map, not the built-in one
        var (map, handedFeatures) = Assert.Single(run.Maps);
        Assert.Same(features, handedFeatures);
        Assert.Equal((3L, BootstrapRun.Bucket, 4), (map.Revision, map.BucketName, map.VBucketCount));
        var node = Assert.Single(map.Nodes);
        Assert.Equal(("127.0.0.1", 11210), (node.Host, node.KvPort)); // "$HOST" is the host connected to
    }
}
