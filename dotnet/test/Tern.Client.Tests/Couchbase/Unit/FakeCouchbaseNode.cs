using Tern.Client.Couchbase;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// A one-node couchbase:// "cluster" played by <see cref="FakeServer"/>: it answers the SDK's
/// credential probe and each bucket connection's bootstrap (SCRAM-SHA512, a 4-vbucket map of
/// itself), then hands the bucket connection to the test as <see cref="Peer"/>, which answers the
/// key-value requests. The clock is a <see cref="RetryTimerClock"/>; polling and keepalives are
/// off, so nothing but the test's operations reach the peer.
/// </summary>
internal sealed class FakeCouchbaseNode : IAsyncDisposable
{
    public const string BucketName = "shop";

    /// <summary>Everything the SDK asks for: the node acknowledges what it both asks for and supports.</summary>
    public static readonly HelloFeature[] AllFeatures =
    [
        HelloFeature.TcpNoDelay, HelloFeature.MutationSeqno, HelloFeature.Xattr, HelloFeature.Xerror, HelloFeature.SelectBucket,
        HelloFeature.Snappy, HelloFeature.Json, HelloFeature.Duplex, HelloFeature.ClustermapChangeNotification,
        HelloFeature.Tracing, HelloFeature.AltRequestSupport, HelloFeature.SyncReplication,
        HelloFeature.Collections, HelloFeature.PreserveTtl, HelloFeature.SubdocCreateAsDeleted, HelloFeature.SubdocBinaryXattr,
    ];

    private readonly FakeServer _listener;
    private readonly HashSet<HelloFeature> _supported;
    private readonly List<FakeServer> _peers = new();
    private Cluster? _cluster;
    private FakeServer? _peer;

    private FakeCouchbaseNode(IEnumerable<HelloFeature> supported)
    {
        _listener = new FakeServer();
        _supported = supported.ToHashSet();
    }

    public RetryTimerClock Time { get; } = new();

    public Cluster Cluster => _cluster ?? throw new InvalidOperationException("not connected");

    /// <summary>The bucket's current connection, seen from the server.</summary>
    public FakeServer Peer => _peer ?? throw new InvalidOperationException("no bucket open");

    public int Port => _listener.Port;

    /// <summary>The features the last bucket connection's HELLO asked for.</summary>
    public HelloFeature[] LastHello { get; private set; } = [];

    /// <summary>The features the credential probe's HELLO (Cluster.ConnectAsync, no bucket) asked for.</summary>
    public HelloFeature[] ProbeHello { get; private set; } = [];

    internal BucketTopology Topology => Assert.Single(Cluster.Topologies);

    /// <summary>
    /// Connects a cluster (answering the credential probe) and opens <see cref="BucketName"/>.
    /// <paramref name="supported"/> defaults to every feature the SDK asks for.
    /// </summary>
    public static async Task<(FakeCouchbaseNode Node, Bucket Bucket)> StartAsync(
        Func<ClusterOptions, ClusterOptions>? configure = null, IEnumerable<HelloFeature>? supported = null)
    {
        var node = new FakeCouchbaseNode(supported ?? AllFeatures);
        try
        {
            var options = new ClusterOptions
            {
                UserName = PeerReplies.User,
                Password = PeerReplies.Password,
                TimeProvider = node.Time,
                KvTimeout = TimeSpan.FromSeconds(10),
                ConfigPollInterval = TimeSpan.FromHours(1),
                KeepAliveInterval = TimeSpan.Zero,
                MaxConnectionsPerNode = 1,
            };
            options = configure?.Invoke(options) ?? options;
            var connecting = Cluster.ConnectAsync($"couchbase://127.0.0.1:{node.Port}", options);
            await node.AnswerBootstrapAsync(node._listener, bucket: null);
            node._cluster = await connecting.WaitAsync(SafetyNet.Limit);

            var peer = node.NextConnection();
            var bucket = node.Cluster.Bucket(BucketName);
            await node.AnswerBootstrapAsync(peer, BucketName);
            await bucket.WaitUntilReadyAsync(TimeSpan.FromHours(1)).WaitAsync(SafetyNet.Limit);
            node._peer = peer;
            return (node, bucket);
        }
        catch
        {
            await node.DisposeAsync();
            throw;
        }
    }

    /// <summary>A peer for the next connection the SDK opens (call before it connects, e.g. before a reconnect).</summary>
    public FakeServer NextConnection()
    {
        var peer = _listener.AcceptNext();
        _peers.Add(peer);
        return peer;
    }

    /// <summary>Answers a reconnect's bootstrap on <paramref name="peer"/>, which becomes <see cref="Peer"/>.</summary>
    public async Task AcceptReconnectAsync(FakeServer peer)
    {
        await AnswerBootstrapAsync(peer, BucketName);
        _peer = peer;
    }

    public string MapJson(long revision) => PeerReplies.MapJson(Port, revision, BucketName);

    private async Task AnswerBootstrapAsync(FakeServer peer, string? bucket)
    {
        var first = await peer.ReceiveAsync(4);
        Assert.Equal([Opcode.Hello, Opcode.GetErrorMap, Opcode.SaslListMechs, Opcode.SaslAuth], first.Select(r => r.Opcode));
        var asked = PeerReplies.Features(first[0].Value);
        if (bucket is not null)
            LastHello = asked;
        else
            ProbeHello = asked;
        await peer.ReplyAsync(first[0], ResponseStatus.Success, PeerReplies.HelloValue(asked.Where(_supported.Contains)));
        await peer.ReplyAsync(first[1], ResponseStatus.Success, PeerReplies.ErrorMapJson);
        await peer.ReplyAsync(first[2], ResponseStatus.Success, "SCRAM-SHA512 SCRAM-SHA256");
        var scram = new ScramServer(first[3].Key, PeerReplies.Password);
        await peer.ReplyAsync(first[3], ResponseStatus.AuthContinue, scram.Challenge(first[3].Value));

        var second = await peer.ReceiveAsync(bucket is null ? 1 : 3);
        var signature = scram.Sign(second[0].Value);
        Assert.True(scram.ProofValid);
        await peer.ReplyAsync(second[0], ResponseStatus.Success, signature);
        if (bucket is null)
            return;
        Assert.Equal((Opcode.SelectBucket, bucket), (second[1].Opcode, second[1].Key));
        await peer.ReplyAsync(second[1], ResponseStatus.Success);
        await peer.ReplyAsync(second[2], ResponseStatus.Success, MapJson(revision: 1));
    }

    public async ValueTask DisposeAsync()
    {
        if (_cluster is not null)
            await _cluster.DisposeAsync();
        foreach (var peer in _peers)
            await peer.DisposeAsync();
        await _listener.DisposeAsync();
    }
}
