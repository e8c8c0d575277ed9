using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>ETMPFAIL (temp, retry-now): the server did not apply the write, so the upsert is sent again and succeeds.</summary>
public class TemporaryFailureRetryTests
{
    [Fact]
    public async Task AnUpsertAnsweredEtmpfailIsSentAgainWithTheSameContent()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var upsert = bucket.DefaultCollection().UpsertAsync("k", "value").Soon();
        var first = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(first, ResponseStatus.Etmpfail);
        var second = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(second, ResponseStatus.Success, cas: 42);
        var result = await upsert;

        Assert.Equal(42UL, result.Cas);
        Assert.Equal((Opcode.Set, Opcode.Set), (first.Opcode, second.Opcode));
        Assert.NotEqual(first.Opaque, second.Opaque);
        Assert.Equal(first.KeyBytes.ToArray(), second.KeyBytes.ToArray());
        Assert.Equal(first.Value.ToArray(), second.Value.ToArray());
        Assert.Equal(first.Extras.ToArray(), second.Extras.ToArray());
    }
}
