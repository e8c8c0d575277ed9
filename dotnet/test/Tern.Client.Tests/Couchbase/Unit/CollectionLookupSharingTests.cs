using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// Operations that wait for the same collection id share one GET_COLLECTION_ID. One caller giving
/// up (cancelling, or reaching its shorter timeout) must not fail the others: each has its own
/// token and its own deadline.
/// </summary>
public class CollectionLookupSharingTests
{
    [Fact]
    public async Task OneCallerCancellingDoesNotFailAnotherWaitingForTheSameId()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var users = bucket.Scope("app").Collection("users");
        using var cancellation = new CancellationTokenSource();

        var cancelled = users.GetAsync("a", new GetOptions { CancellationToken = cancellation.Token }).Soon();
        var patient = users.GetAsync("b").Soon();
        var lookup = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(Opcode.GetCollectionId, lookup.Opcode);
        cancellation.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled);
        await node.Peer.ReplyAsync(lookup, ResponseStatus.Success, extras: PeerReplies.CollectionIdExtras(9));

        using var result = await ServeUntilDoneAsync(node.Peer, patient);
        Assert.Equal("v", result.ContentAsString());
    }

    [Fact]
    public async Task OneCallersShortTimeoutDoesNotFailAnotherWaitingForTheSameId()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var users = bucket.Scope("app").Collection("users");

        var hasty = users.GetAsync("a", new GetOptions { Timeout = TimeSpan.FromMilliseconds(100) }).Soon();
        var patient = users.GetAsync("b", new GetOptions { Timeout = TimeSpan.FromSeconds(10) }).Soon();
        var lookup = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(Opcode.GetCollectionId, lookup.Opcode);
        node.Time.Advance(TimeSpan.FromMilliseconds(100));
        await Assert.ThrowsAnyAsync<Exceptions.TimeoutException>(() => hasty);
        await node.Peer.ReplyAsync(lookup, ResponseStatus.Success, extras: PeerReplies.CollectionIdExtras(9));

        using var result = await ServeUntilDoneAsync(node.Peer, patient);
        Assert.Equal("v", result.ContentAsString());
    }

    /// <summary>Answers lookups with id 9 and reads with "v" until <paramref name="operation"/> completes.</summary>
    private static async Task<GetResult> ServeUntilDoneAsync(FakeServer peer, Task<GetResult> operation)
    {
        while (!operation.IsCompleted)
        {
            var next = peer.ReceiveAsync(1);
            if (await Task.WhenAny(next, operation) == operation)
                break;
            var request = Assert.Single(await next);
            if (request.Opcode == Opcode.GetCollectionId)
                await peer.ReplyAsync(request, ResponseStatus.Success, extras: PeerReplies.CollectionIdExtras(9));
            else
                await peer.ReplyAsync(request, ResponseStatus.Success, "v");
        }
        return await operation;
    }
}
