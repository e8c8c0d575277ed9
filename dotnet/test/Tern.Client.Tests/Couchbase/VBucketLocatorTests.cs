using System.IO.Hashing;
using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Locators;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase;

/// <summary>VBucketLocator against the shared vectors (testdata/mcbp/vbuckets.json, computed with Python's zlib).</summary>
public class VBucketLocatorTests
{
    public static TheoryData<string, string, int> Vectors()
    {
        using var document = TestData.Load("mcbp/vbuckets.json");
        Assert.Equal(1024, document.RootElement.GetProperty("vbuckets").GetInt32());
        var data = new TheoryData<string, string, int>();
        foreach (var row in document.RootElement.GetProperty("keys").EnumerateArray())
            data.Add(row.GetProperty("key").GetString()!, row.GetProperty("crc32").GetString()!, row.GetProperty("vbucket").GetInt32());
        return data;
    }

    private static ClusterMap Map(string json) => ClusterMap.Parse(Encoding.UTF8.GetBytes(json), "127.0.0.1");

    [Fact]
    public void TheVectorsCoverTheAwkwardKeys()
    {
        var keys = Vectors().Select(row => (string)row[0]).ToList();
        Assert.True(keys.Count >= 10);
        Assert.Contains("", keys);
        Assert.Contains(keys, key => Encoding.UTF8.GetByteCount(key) == 250);
        Assert.Contains(keys, key => Encoding.UTF8.GetByteCount(key) > key.Length);
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public void KeysLandOnTheVectorsVBucket(string key, string crc32, int vbucket)
    {
        var bytes = Encoding.UTF8.GetBytes(key);
        // The library's CRC first: a wrong polynomial would show here, not only as a wrong vbucket.
        Assert.Equal(Convert.ToUInt32(crc32, 16), Crc32.HashToUInt32(bytes));
        var locator = new VBucketLocator(Map(ClusterMapTests.OneNodeConfig()));
        Assert.Equal(new KeyLocation(0, (ushort)vbucket), locator.Locate(bytes));
        Assert.Equal(1, locator.NodeCount);
    }

    [Theory]
    [InlineData("hello", 0, 0)] // vbucket 528 of 1024 is 0 of 8
    [InlineData("foo", 3, 1)] // 115
    [InlineData("Hello, World!", 2, 1)] // 74
    [InlineData("123456789", 4, 2)] // 1012
    [InlineData("a", 7, 0)] // 183
    [InlineData("données", 6, -1)] // 854: vbucket 6 has no active node
    public void KeysGoToTheActiveNodeOfTheirVBucket(string key, int vbucket, int node)
    {
        var locator = new VBucketLocator(Map(ClusterMapTests.ThreeNodeConfig));
        Assert.Equal(3, locator.NodeCount);
        Assert.Equal(new KeyLocation(node, (ushort)vbucket), locator.Locate(Encoding.UTF8.GetBytes(key)));
    }

    [Fact]
    public void LocatingAllocatesNothing()
    {
        var locator = new VBucketLocator(Map(ClusterMapTests.ThreeNodeConfig));
        var key = "user::1234"u8.ToArray();
        locator.Locate(key);
        var before = GC.GetAllocatedBytesForCurrentThread();
        var sum = 0;
        for (var i = 0; i < 1000; i++)
            sum += locator.Locate(key).VBucket;
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(7000, sum); // vbucket 495 of 1024 is 7 of 8
    }
}
