using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// LOCKED (item-locked, retry-now in the server's error map): the retry step sends the read again
/// at once the first time, then after the back-off (10, 50, 100, 500 ms) on the cluster's clock,
/// until an answer succeeds or the deadline comes.
/// </summary>
public class LockedRetryTests
{
    [Fact]
    public async Task CancellingDuringTheBackOffFailsTheReadAtOnce()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        using var cancel = new CancellationTokenSource();

        var get = bucket.DefaultCollection().GetAsync("k", new GetOptions { CancellationToken = cancel.Token }).Soon();
        var first = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(first, ResponseStatus.Locked);
        var second = Assert.Single(await node.Peer.ReceiveAsync(1));
        var armed = node.Time.NextRetryBackoff();
        await node.Peer.ReplyAsync(second, ResponseStatus.Locked);
        await armed;

        cancel.Cancel(); // the fake clock never reaches the end of the back-off
        var error = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => get);
        Assert.Contains("'k'", error.Message);
        Assert.Contains("locked", error.Message);
        Assert.Equal(cancel.Token, error.CancellationToken);
    }

    [Fact]
    public async Task ALockedReadIsSentAgainAfterTheBackOffAndSucceeds()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;
        var collection = bucket.DefaultCollection();

        var get = collection.GetAsync("k").Soon();
        var first = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(first, ResponseStatus.Locked);
        var second = Assert.Single(await node.Peer.ReceiveAsync(1)); // retry-now: no wait the first time
        var armed = node.Time.NextRetryBackoff();
        await node.Peer.ReplyAsync(second, ResponseStatus.Locked);
        Assert.Equal(TimeSpan.FromMilliseconds(10), await armed);

        // Just short of the back-off nothing is resent: a read sent now arrives first.
        node.Time.Advance(TimeSpan.FromMilliseconds(9));
        var other = collection.GetAsync("other").Soon();
        var otherRequest = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(PeerReplies.PrefixedKey(0, "other"), otherRequest.KeyBytes.ToArray());
        await node.Peer.ReplyAsync(otherRequest, ResponseStatus.Success, "o");
        (await other).Dispose();

        node.Time.Advance(TimeSpan.FromMilliseconds(1));
        var third = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(Opcode.Get, third.Opcode);
        Assert.Equal(PeerReplies.PrefixedKey(0, "k"), third.KeyBytes.ToArray());
        await node.Peer.ReplyAsync(third, ResponseStatus.Success, "unlocked now");
        using var result = await get;

        Assert.Equal("unlocked now", result.ContentAsString());
        Assert.Equal(3, new[] { first.Opaque, second.Opaque, third.Opaque }.Distinct().Count()); // three attempts
    }

    [Fact]
    public async Task AReadLockedUntilItsDeadlineTimesOutNamingTheRetries()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        var get = collectionGet(bucket);
        await node.Peer.ReplyAsync(Assert.Single(await node.Peer.ReceiveAsync(1)), ResponseStatus.Locked);
        var waits = new List<TimeSpan>();
        // Sent again at 0, 10, 60, 160 and 660 ms; the last back-off is cut to the 340 ms left.
        for (var attempt = 2; attempt <= 6; attempt++)
        {
            var request = Assert.Single(await node.Peer.ReceiveAsync(1));
            var armed = node.Time.NextRetryBackoff();
            await node.Peer.ReplyAsync(request, ResponseStatus.Locked);
            var wait = await armed;
            waits.Add(wait);
            node.Time.Advance(wait);
        }

        var error = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => get);
        Assert.Equal([10, 50, 100, 500, 340], waits.Select(w => w.TotalMilliseconds));
        Assert.Equal("get of key 'k' timed out after 1000 ms (timeout 1000 ms) after 6 retries (locked ×6); no attempt was applied",
            error.Message);

        static Task<GetResult> collectionGet(Bucket bucket) =>
            bucket.DefaultCollection().GetAsync("k", new GetOptions { Timeout = TimeSpan.FromSeconds(1) }).Soon();
    }

    [Fact]
    public async Task AnUnlockAnsweredLockedFailsAtOnce()
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        await using var _ = node;

        // UNLOCK is answered LOCKED when its CAS does not hold the lock: sending it again cannot help.
        var unlock = bucket.DefaultCollection().UnlockAsync("k", cas: 7).Soon();
        var request = Assert.Single(await node.Peer.ReceiveAsync(1));
        await node.Peer.ReplyAsync(request, ResponseStatus.Locked);

        await Assert.ThrowsAsync<DocumentLockedException>(() => unlock);
        Assert.Equal((Opcode.UnlockKey, 7UL), (request.Opcode, request.Cas));
    }
}
