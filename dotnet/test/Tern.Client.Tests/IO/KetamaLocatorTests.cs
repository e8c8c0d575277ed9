using System.Text;
using Tern.Client.Locators;

namespace Tern.Client.Tests.IO;

public class KetamaLocatorTests
{
    private static readonly (string, int)[] ThreeServers = [("10.0.0.1", 11211), ("10.0.0.2", 11211), ("10.0.0.3", 11211)];

    private static int Node(KetamaLocator locator, string key) => locator.Locate(Encoding.UTF8.GetBytes(key)).NodeIndex;

    [Fact]
    public void HashesAKeyWithTheFirstFourMd5BytesLittleEndian()
    {
        // MD5("") = d41d8cd98f00b204e9800998ecf8427e; the first four bytes read little-endian.
        Assert.Equal(0xd98c1dd4u, KetamaLocator.Hash([]));
    }

    // Server index of "key-0".."key-39" as computed by libmemcached 1.0.18 itself
    // (memcached_generate_hash with MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED on these servers).
    [Theory]
    [InlineData(11211, 11211, 11211, "2,1,0,1,1,0,0,0,1,2,1,0,0,0,2,1,2,2,0,1,1,0,0,1,2,2,1,0,0,1,1,0,1,1,0,1,1,0,1,0")]
    [InlineData(11211, 11300, 11400, "1,0,0,2,2,0,2,0,2,2,0,2,0,1,2,1,1,1,1,0,0,0,1,1,2,1,0,2,2,0,1,2,0,2,1,0,2,0,2,0")]
    public void PlacesKeysWhereLibmemcachedDoes(int port1, int port2, int port3, string expected)
    {
        var locator = new KetamaLocator([("10.0.0.1", port1), ("10.0.0.2", port2), ("10.0.0.3", port3)]);
        var actual = string.Join(",", Enumerable.Range(0, 40).Select(i => Node(locator, $"key-{i}")));
        Assert.Equal(expected, actual);
    }

    [Fact]
    public void SpreadsKeysOverEveryServer()
    {
        var locator = new KetamaLocator(ThreeServers);
        var counts = new int[3];
        for (var i = 0; i < 30_000; i++)
            counts[Node(locator, $"key-{i}")]++;
        // 160 points per server keep each share well within 20-47% of the keys.
        Assert.All(counts, count => Assert.InRange(count, 6_000, 14_000));
    }

    [Fact]
    public void IsDeterministicAcrossInstances()
    {
        var a = new KetamaLocator(ThreeServers);
        var b = new KetamaLocator(ThreeServers);
        for (var i = 0; i < 1000; i++)
            Assert.Equal(Node(a, $"k{i}"), Node(b, $"k{i}"));
    }

    [Fact]
    public void AddingAServerMovesOnlyKeysToTheNewServer()
    {
        var before = new KetamaLocator(ThreeServers);
        var after = new KetamaLocator([.. ThreeServers, ("10.0.0.4", 11211)]);
        var moved = 0;
        for (var i = 0; i < 10_000; i++)
        {
            var was = Node(before, $"key-{i}");
            var now = Node(after, $"key-{i}");
            if (was == now)
                continue;
            Assert.Equal(3, now); // a key only ever moves onto the new server
            moved++;
        }
        Assert.InRange(moved, 1_000, 4_000); // about a quarter
    }

    [Fact]
    public void SingleServerTakesEverything()
    {
        var locator = new KetamaLocator([("localhost", 11211)]);
        Assert.Equal(0, Node(locator, "anything"));
    }
}
