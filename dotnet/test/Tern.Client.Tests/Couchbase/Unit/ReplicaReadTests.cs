using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// Replica reads against a fake node whose map gives every vbucket one replica (on the same node,
/// so one peer sees every request): the active copy is read with GET, the replica with
/// GET_REPLICA (LookupIn: the ReplicaRead doc flag), and results say which copy they are.
/// </summary>
public class ReplicaReadTests
{
    private static async Task<(FakeCouchbaseNode Node, Collection Collection)> StartWithOneReplicaAsync(string capabilities = "\"collections\",\"subdoc.ReplicaRead\"")
    {
        var (node, bucket) = await FakeCouchbaseNode.StartAsync();
        var json = $$$"""
            {"rev":2,"name":"{{{FakeCouchbaseNode.BucketName}}}","nodeLocator":"vbucket","bucketCapabilities":[{{{capabilities}}}],
             "vBucketServerMap":{"hashAlgorithm":"CRC","numReplicas":1,"serverList":["$HOST:{{{node.Port}}}"],
             "vBucketMap":[[0,0],[0,0],[0,0],[0,0]]}}
            """;
        Assert.True(node.Topology.Offer(Encoding.UTF8.GetBytes(json), $"127.0.0.1:{node.Port}", "test"));
        Assert.Equal(1, node.Topology.Map!.ReplicaCount);
        return (node, bucket.DefaultCollection());
    }

    [Fact]
    public async Task AnyReplicaReturnsTheFirstCopyFoundAndSaysItIsAReplica()
    {
        var (node, collection) = await StartWithOneReplicaAsync();
        await using var _ = node;

        var read = collection.GetAnyReplicaAsync("k");
        var requests = await node.Peer.ReceiveAsync(2);
        Assert.Equal([Opcode.Get, Opcode.GetReplica], requests.Select(r => r.Opcode).Order());
        var active = requests.Single(r => r.Opcode == Opcode.Get);
        var replica = requests.Single(r => r.Opcode == Opcode.GetReplica);
        Assert.Equal(active.KeyBytes.ToArray(), replica.KeyBytes.ToArray());
        Assert.Equal(active.VBucket, replica.VBucket);
        await node.Peer.ReplyAsync(active, ResponseStatus.KeyEnoent);
        await node.Peer.ReplyAsync(replica, ResponseStatus.Success, "from the replica");

        using var result = await read.WaitAsync(SafetyNet.Limit);
        Assert.False(result.IsActive);
        Assert.Equal("from the replica", result.ContentAsString());
    }

    [Fact]
    public async Task AllReplicasReturnsEveryCopyAndNoCopyIsUnretrievable()
    {
        var (node, collection) = await StartWithOneReplicaAsync();
        await using var _ = node;

        var copies = new List<GetResult>();
        var reading = Task.Run(async () =>
        {
            await foreach (var copy in collection.GetAllReplicasAsync("k"))
                copies.Add(copy);
        });
        foreach (var request in await node.Peer.ReceiveAsync(2))
            await node.Peer.ReplyAsync(request, ResponseStatus.Success, request.Opcode == Opcode.Get ? "active" : "replica");
        await reading.WaitAsync(SafetyNet.Limit);
        Assert.Equal([("active", true), ("replica", false)],
            copies.Select(c => (c.ContentAsString(), c.IsActive)).OrderBy(c => c.Item1));

        var missing = collection.GetAnyReplicaAsync("gone");
        foreach (var request in await node.Peer.ReceiveAsync(2))
            await node.Peer.ReplyAsync(request, ResponseStatus.KeyEnoent);
        var error = await Assert.ThrowsAsync<DocumentUnretrievableException>(() => missing.WaitAsync(SafetyNet.Limit));
        Assert.Equal("gone", error.Key);
        Assert.Contains("2 tried", error.Message);
    }

    [Fact]
    public async Task AReplicaLookupCarriesTheReplicaReadFlag()
    {
        var (node, collection) = await StartWithOneReplicaAsync();
        await using var _ = node;

        var lookup = collection.LookupInAnyReplicaAsync("k", specs => specs.Exists("a"));
        var requests = await node.Peer.ReceiveAsync(2);
        Assert.All(requests, r => Assert.Equal(Opcode.SubdocMultiLookup, r.Opcode));
        Assert.Equal([0, 0x20], requests.Select(r => r.Extras.Length == 0 ? 0 : (int)r.Extras.Span[0]).Order());
        var fromReplica = requests.Single(r => r.Extras.Length == 1);
        // One spec, Success, an empty value: status u16, length u32.
        await node.Peer.ReplyAsync(fromReplica, ResponseStatus.Success, [0, 0, 0, 0, 0, 0]);

        using var result = await lookup.WaitAsync(SafetyNet.Limit);
        Assert.False(result.IsActive);
        Assert.True(result.Exists(0));
    }

    [Fact]
    public async Task ABucketWithoutSubdocReplicaReadRefusesReplicaLookups()
    {
        var (node, collection) = await StartWithOneReplicaAsync(capabilities: "\"collections\"");
        await using var _ = node;

        var error = await Assert.ThrowsAsync<FeatureNotAvailableException>(() => collection.LookupInAnyReplicaAsync("k", specs => specs.Exists("a")));
        Assert.Contains("subdoc.ReplicaRead", error.Message);
    }
}
