using System.Text;
using Tern.Client.Couchbase;

namespace Tern.Client.Tests.Couchbase;

/// <summary>ClusterMap: parsing bucket configs as servers send them, "$HOST", ordering, and every rejection.</summary>
public class ClusterMapTests
{
    internal static string OneNodeConfig(int vbuckets = 1024, string revEpoch = "\"revEpoch\":1,") => $$$"""
        {"rev":1,{{{revEpoch}}}"name":"default","uuid":"8e1c1a33b0b5a2d9c6f0a3e2","nodeLocator":"vbucket",
         "bucketCapabilities":["cccp","collections","durableWrite","xattr"],
         "nodes":[{"hostname":"$HOST:8091","ports":{"direct":11210}}],
         "nodesExt":[{"services":{"kv":11210},"thisNode":true,"hostname":"$HOST"}],
         "vBucketServerMap":{"hashAlgorithm":"CRC","numReplicas":0,"serverList":["$HOST:11210"],
           "vBucketMap":[{{{string.Join(",", Enumerable.Repeat("[0]", vbuckets))}}}]}}
        """;

    /// <summary>Three nodes, 8 vbuckets with one replica each; vbucket 6 has lost its active copy.</summary>
    internal const string ThreeNodeConfig = """
        {"rev":42,"revEpoch":3,"name":"travel","nodesExt":[{"services":{"kv":11210}}],
         "vBucketServerMap":{"hashAlgorithm":"CRC","numReplicas":1,
           "serverList":["10.0.0.1:11210","node2.example.com:11207","[fd00::3]:11210"],
           "vBucketMap":[[0,1],[0,2],[1,0],[1,2],[2,0],[2,1],[-1,0],[0,-1]]}}
        """;

    private static ClusterMap Parse(string json, string seedHost = "192.168.1.5") =>
        ClusterMap.Parse(Encoding.UTF8.GetBytes(json), seedHost);

    [Fact]
    public void ParsesASingleNodeConfig()
    {
        var map = Parse(OneNodeConfig());
        Assert.Equal(1, map.Epoch);
        Assert.Equal(1, map.Revision);
        Assert.Equal("default", map.BucketName);
        Assert.Equal("8e1c1a33b0b5a2d9c6f0a3e2", map.BucketUuid);
        Assert.Equal([new ClusterNode("192.168.1.5", 11210)], map.Nodes);
        Assert.Equal("192.168.1.5:11210", map.Nodes[0].Endpoint);
        Assert.Equal(1024, map.VBucketCount);
        for (var vbucket = 0; vbucket < 1024; vbucket++)
            Assert.Equal(0, map.ActiveNodeOf(vbucket));
        Assert.True(map.HasCapability("collections"));
        Assert.True(map.HasCapability("durableWrite"));
        Assert.False(map.HasCapability("Collections"));
        Assert.False(map.HasCapability("range_scan"));
        Assert.Equal(0, map.ReplicaCount);
        Assert.Equal(-1, map.ReplicaNodeOf(0, 0));
    }

    [Fact]
    public void ReplicasComeFromTheChainsAfterTheActiveCopy()
    {
        var map = Parse(ThreeNodeConfig);
        Assert.Equal(1, map.ReplicaCount);
        Assert.Equal(1, map.ReplicaNodeOf(0, 0));
        Assert.Equal(0, map.ReplicaNodeOf(2, 0));
        Assert.Equal(-1, map.ReplicaNodeOf(7, 0)); // a replica without a node
        Assert.Equal(-1, map.ReplicaNodeOf(0, 1)); // beyond the replica count
    }

    [Fact]
    public void AMissingRevEpochIsEpochZero()
    {
        var map = Parse(OneNodeConfig(revEpoch: ""));
        Assert.Equal(0, map.Epoch);
        Assert.Equal(1, map.Revision);
    }

    [Theory]
    [InlineData("localhost", "localhost", "localhost:11210")]
    [InlineData("::1", "::1", "[::1]:11210")]
    [InlineData("[::1]", "::1", "[::1]:11210")]
    public void HostPlaceholderBecomesTheSeedHost(string seedHost, string host, string endpoint)
    {
        var node = Parse(OneNodeConfig(8), seedHost).Nodes.Single();
        Assert.Equal(host, node.Host);
        Assert.Equal(endpoint, node.Endpoint);
    }

    [Fact]
    public void ThreeNodesSplitTheVBuckets()
    {
        var map = Parse(ThreeNodeConfig);
        Assert.Equal(3, map.Epoch);
        Assert.Equal(42, map.Revision);
        Assert.Equal("travel", map.BucketName);
        Assert.Null(map.BucketUuid);
        Assert.Equal(
            [new ClusterNode("10.0.0.1", 11210), new ClusterNode("node2.example.com", 11207), new ClusterNode("fd00::3", 11210)],
            map.Nodes);
        Assert.Equal("[fd00::3]:11210", map.Nodes[2].Endpoint);
        Assert.Equal(8, map.VBucketCount);
        short[] active = [0, 0, 1, 1, 2, 2, -1, 0];
        Assert.Equal(active, Enumerable.Range(0, 8).Select(map.ActiveNodeOf));
        Assert.False(map.HasCapability("collections"));
    }

    [Theory]
    [InlineData(1, 5, 1, 4, true)]
    [InlineData(1, 4, 1, 5, false)]
    [InlineData(1, 5, 1, 5, false)]
    [InlineData(2, 1, 1, 100, true)] // a new epoch outranks any revision of the old one
    [InlineData(1, 100, 2, 1, false)]
    [InlineData(0, 7, 0, 6, true)]
    public void MapsAreOrderedByEpochThenRevision(long epoch, long rev, long otherEpoch, long otherRev, bool newer)
    {
        var map = Parse(Config(epoch, rev));
        var other = Parse(Config(otherEpoch, otherRev));
        Assert.Equal(newer, map.IsNewerThan(other));
        Assert.Equal(newer, ClusterMap.IsNewer(epoch, rev, other));
    }

    [Fact]
    public void EveryMapIsNewerThanNone()
    {
        Assert.True(Parse(Config(0, 0)).IsNewerThan(null));
        Assert.True(ClusterMap.IsNewer(0, 0, null));
    }

    [Theory]
    [InlineData("this is not json", "not valid JSON")]
    [InlineData("", "not valid JSON")]
    [InlineData("[1,2]", "not a JSON object")]
    [InlineData("""{"rev":1,"nodeLocator":"ketama","nodes":[]}""", "no vBucketServerMap")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"vBucketMap":[[0]]}}""", "no serverList")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":[],"vBucketMap":[[0]]}}""", "serverList is empty")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"]}}""", "no vBucketMap")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[]}}""", "0 vbuckets")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0],[0],[0]]}}""", "3 vbuckets")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0],[1]]}}""", "entry 1 names node 1")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0,1],[0]]}}""", "entry 0 names node 1")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0],[-2]]}}""", "entry 1 names node -2")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0],[]]}}""", "entry 1 is not a non-empty array")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0],["0"]]}}""", "entry 1 names node \"0\"")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"hashAlgorithm":"MD5","serverList":["h:1"],"vBucketMap":[[0]]}}""", "hashAlgorithm")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h"],"vBucketMap":[[0]]}}""", "\"h\" is not host:port")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["fd00::1:11210"],"vBucketMap":[[0]]}}""", "needs brackets")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["[fd00::1]11210"],"vBucketMap":[[0]]}}""", "is not [host]:port")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:0"],"vBucketMap":[[0]]}}""", "no valid port")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":["h:65536"],"vBucketMap":[[0]]}}""", "no valid port")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":[":11210"],"vBucketMap":[[0]]}}""", "not host:port")]
    [InlineData("""{"rev":1,"vBucketServerMap":{"serverList":[7],"vBucketMap":[[0]]}}""", "entry 0 is not a string")]
    [InlineData("""{"rev":"1","vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0]]}}""", "\"rev\" is not an integer")]
    [InlineData("""{"rev":1,"bucketCapabilities":"cccp","vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0]]}}""", "bucketCapabilities")]
    public void UnusableConfigsThrowFormatExceptionNamingTheProblem(string json, string expected)
    {
        var error = Assert.Throws<FormatException>(() => Parse(json));
        Assert.Contains(expected, error.Message);
    }

    [Fact]
    public void TheSmallestValidConfigIsOneVBucketOnOneNode()
    {
        var map = Parse("""{"vBucketServerMap":{"serverList":["h:1"],"vBucketMap":[[0]]}}""");
        Assert.Equal((0, 0, 1), (map.Epoch, map.Revision, map.VBucketCount));
        Assert.Null(map.BucketName);
    }

    [Fact]
    public void OverTlsEachNodeIsReachedAtItsKvSslPortMatchedByHostAndPort()
    {
        // nodesExt in another order than serverList, one node named "$HOST".
        const string json = """
            {"rev":1,"nodesExt":[
               {"services":{"kv":11210,"kvSSL":11207,"mgmt":8091,"mgmtSSL":18091},"hostname":"b.example"},
               {"services":{"kv":11300,"kvSSL":11307,"mgmtSSL":18092}}],
             "vBucketServerMap":{"hashAlgorithm":"CRC","serverList":["$HOST:11300","b.example:11210"],"vBucketMap":[[0],[1]]}}
            """;

        var map = ClusterMap.Parse(Encoding.UTF8.GetBytes(json), "seed.example", tls: true);
        var plain = Parse(json, "seed.example");

        Assert.Equal([new ClusterNode("seed.example", 11307), new ClusterNode("b.example", 11207)], map.Nodes);
        Assert.Equal([new ClusterNode("seed.example", 11300), new ClusterNode("b.example", 11210)], plain.Nodes);
        Assert.Equal(["https://b.example:18091/", "https://seed.example:18092/"], map.Management.Select(m => m.BaseUri.ToString()));
        Assert.Equal(["http://b.example:8091/"], plain.Management.Select(m => m.BaseUri.ToString()));
    }

    [Fact]
    public void OverTlsANodeWithoutKvSslIsAnErrorNamingIt()
    {
        var error = Assert.Throws<FormatException>(() => ClusterMap.Parse(Encoding.UTF8.GetBytes(OneNodeConfig()), "10.1.1.1", tls: true));

        Assert.Contains("node 10.1.1.1:11210 no TLS port (nodesExt services.kvSSL)", error.Message);
    }

    private static string Config(long epoch, long rev) =>
        $$$"""{"rev":{{{rev}}},"revEpoch":{{{epoch}}},"vBucketServerMap":{"serverList":["h:11210"],"vBucketMap":[[0],[0]]}}""";
}
