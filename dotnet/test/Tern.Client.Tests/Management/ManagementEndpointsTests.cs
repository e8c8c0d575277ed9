using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Tests.Couchbase;

namespace Tern.Client.Tests.Management;

/// <summary>Where a cluster map says the management port is: nodesExt's "mgmt", else nodes[].hostname; never a guess.</summary>
public class ManagementEndpointsTests
{
    private static ClusterMap Parse(string json, string seedHost = "192.168.1.5") => ClusterMap.Parse(Encoding.UTF8.GetBytes(json), seedHost);

    private static string WithNodes(string nodes) => $$$"""
        {"rev":1,"name":"default",{{{nodes}}},
         "vBucketServerMap":{"hashAlgorithm":"CRC","serverList":["$HOST:11210"],"vBucketMap":[[0],[0]]}}
        """;

    [Fact]
    public void TheMgmtServiceOfNodesExtNamesThePortAndHostIsTheSeed()
    {
        var map = Parse(WithNodes("""
            "nodes":[{"hostname":"$HOST:9000"}],
            "nodesExt":[{"services":{"kv":11210,"mgmt":40123},"thisNode":true,"hostname":"$HOST"}]
            """));
        Assert.Equal([new ManagementEndpoint("192.168.1.5", 40123)], map.Management);
        Assert.Equal(new Uri("http://192.168.1.5:40123/"), map.Management[0].BaseUri);
    }

    [Fact]
    public void ANodeWithoutMgmtInNodesExtHasNoEndpointEvenIfNodesNamesAHostnamePort()
    {
        // ternd writes nodes[].hostname "$HOST:8091" even when its port is off: nodesExt decides.
        Assert.Empty(Parse(ClusterMapTests.OneNodeConfig()).Management);
    }

    [Fact]
    public void EachNodeOfSeveralKeepsItsOwnHostAndANodeWithoutAHostnameIsTheSeed()
    {
        var map = Parse(WithNodes("""
            "nodesExt":[{"services":{"kv":11210,"mgmt":8091},"hostname":"10.0.0.1"},
                        {"services":{"kv":11210}},
                        {"services":{"mgmt":18091},"hostname":"fd00::3"},
                        {"services":{"mgmt":8091}}]
            """));
        Assert.Equal([new("10.0.0.1", 8091), new("fd00::3", 18091), new ManagementEndpoint("192.168.1.5", 8091)], map.Management);
        Assert.Equal(new Uri("http://[fd00::3]:18091/"), map.Management[1].BaseUri);
    }

    [Fact]
    public void WithoutNodesExtTheHostnamesOfNodesAreUsed()
    {
        var map = Parse(WithNodes("""
            "nodes":[{"hostname":"$HOST:8091"},{"hostname":"[fd00::4]:8092"},{"hostname":"no-port"}]
            """), seedHost: "[::1]");
        Assert.Equal([new("::1", 8091), new ManagementEndpoint("fd00::4", 8092)], map.Management);
    }

    [Fact]
    public void MalformedEntriesAreSkippedAndKeysStillRoute()
    {
        var map = Parse(WithNodes("""
            "nodesExt":[{"services":{"mgmt":"8091"}},{"services":{"mgmt":70000}},{"services":[]},7]
            """));
        Assert.Empty(map.Management);
        Assert.Equal(2, map.VBucketCount);
    }
}
