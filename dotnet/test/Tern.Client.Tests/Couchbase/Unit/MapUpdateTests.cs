using System.Buffers.Binary;
using System.Text;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>Newer cluster maps also arrive by polling (with the version the SDK has) and by the server's pushes.</summary>
public class MapUpdateTests
{
    private static readonly TimeSpan PollInterval = TimeSpan.FromSeconds(2.5);

    [Fact]
    public async Task EveryPollIntervalTheSdkAsksForAMapNewerThanItsOwn()
    {
        var (node, _) = await FakeCouchbaseNode.StartAsync(o => o with { ConfigPollInterval = PollInterval });
        await using var __ = node;

        node.Time.Advance(PollInterval);
        var poll = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(Opcode.GetClusterConfig, poll.Opcode);
        Assert.Equal(16, poll.Extras.Length);
        Assert.Equal(0L, BinaryPrimitives.ReadInt64BigEndian(poll.Extras.Span));      // the map has no revEpoch: 0
        Assert.Equal(1L, BinaryPrimitives.ReadInt64BigEndian(poll.Extras.Span[8..])); // the revision it has
        await node.Peer.ReplyAsync(poll, ResponseStatus.Success, node.MapJson(revision: 7));
        await Poll.Until(() => node.Topology.Map!.Revision == 7, "the polled map was not installed");

        // The next poll sends the new version; an empty answer means "yours is current".
        node.Time.Advance(PollInterval);
        var next = Assert.Single(await node.Peer.ReceiveAsync(1));
        Assert.Equal(7L, BinaryPrimitives.ReadInt64BigEndian(next.Extras.Span[8..]));
        await node.Peer.ReplyAsync(next, ResponseStatus.Success);
        Assert.Equal(7L, node.Topology.Map!.Revision);
    }

    [Fact]
    public async Task APushedMapIsInstalledAndAnOlderOneIgnored()
    {
        var (node, _) = await FakeCouchbaseNode.StartAsync();
        await using var __ = node;
        var bucket = Encoding.UTF8.GetBytes(FakeCouchbaseNode.BucketName);

        await node.Peer.PushAsync((byte)ServerOpcode.ClustermapChangeNotification, bucket, Version(0, 9),
            Encoding.UTF8.GetBytes(node.MapJson(revision: 9)));
        await Poll.Until(() => node.Topology.Map!.Revision == 9, "the pushed map was not installed");

        await node.Peer.PushAsync((byte)ServerOpcode.ClustermapChangeNotification, bucket, Version(0, 3),
            Encoding.UTF8.GetBytes(node.MapJson(revision: 3)));
        // A later push proves the older one was read (and dropped) first: pushes are handled in order.
        await node.Peer.PushAsync((byte)ServerOpcode.ClustermapChangeNotification, bucket, Version(0, 10),
            Encoding.UTF8.GetBytes(node.MapJson(revision: 10)));
        await Poll.Until(() => node.Topology.Map!.Revision == 10, "the last pushed map was not installed");
    }

    private static byte[] Version(long epoch, long revision)
    {
        var extras = new byte[16];
        BinaryPrimitives.WriteInt64BigEndian(extras, epoch);
        BinaryPrimitives.WriteInt64BigEndian(extras.AsSpan(8), revision);
        return extras;
    }
}
