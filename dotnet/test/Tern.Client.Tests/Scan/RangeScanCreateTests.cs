using System.Text;
using System.Text.Json;
using Tern.Client.Protocol;
using Tern.Client.Scan;

namespace Tern.Client.Tests.Scan;

/// <summary>The JSON of RANGE_SCAN_CREATE, as kv_engine's range_scan_create.md specifies it.</summary>
public class RangeScanCreateTests
{
    private static JsonElement Json(ScanRequest request)
    {
        var operation = RangeScanCreateOperation.Create(9, request);
        Assert.Equal(9, operation.PinnedVBucket);
        Assert.Equal(0, operation.Request.LogicalKey.Length);
        return JsonDocument.Parse(operation.Request.Value.ToArray()).RootElement;
    }

    private static string Base64(string key) => Convert.ToBase64String(Encoding.UTF8.GetBytes(key));

    [Fact]
    public void ARangeNamesItsBoundsInBase64AndTheCollectionInHex()
    {
        var scan = new RangeScan(ScanTerm.Exclusive("a"), ScanTerm.Inclusive("m"));
        var json = Json(new ScanRequest(0x1a, KeyOnly: true, scan.From, scan.To, null, null, TimeSpan.FromSeconds(75)));

        Assert.Equal("1a", json.GetProperty("collection").GetString());
        Assert.True(json.GetProperty("key_only").GetBoolean());
        var range = json.GetProperty("range");
        Assert.Equal(Base64("a"), range.GetProperty("excl_start").GetString());
        Assert.Equal(Base64("m"), range.GetProperty("end").GetString());
        Assert.False(json.TryGetProperty("snapshot_requirements", out _));
    }

    [Fact]
    public void APrefixRunsFromThePrefixToThePrefixAndFF()
    {
        var scan = new PrefixScan("user-");
        var range = Json(new ScanRequest(0, false, scan.From, scan.To, null, null, TimeSpan.FromSeconds(1))).GetProperty("range");
        Assert.Equal(Base64("user-"), range.GetProperty("start").GetString());
        Assert.Equal(Convert.ToBase64String([.. "user-"u8, 0xff]), range.GetProperty("excl_end").GetString());
    }

    [Fact]
    public void SamplingAndSnapshotRequirementsAreSpelledAsTheServerReadsThem()
    {
        var token = new MutationToken("default", 9, 18_446_744_073_709_551_615, 42);
        var json = Json(new ScanRequest(8, false, null, null, new SamplingScan(10, 77), token, TimeSpan.FromMilliseconds(2500)));

        Assert.False(json.TryGetProperty("key_only", out _));
        Assert.Equal(10ul, json.GetProperty("sampling").GetProperty("samples").GetUInt64());
        Assert.Equal(77ul, json.GetProperty("sampling").GetProperty("seed").GetUInt64());
        var snapshot = json.GetProperty("snapshot_requirements");
        Assert.Equal("18446744073709551615", snapshot.GetProperty("vb_uuid").GetString()); // a string: JSON numbers lose 64-bit precision
        Assert.Equal(42ul, snapshot.GetProperty("seqno").GetUInt64());
        Assert.Equal(2500ul, snapshot.GetProperty("timeout_ms").GetUInt64());
    }

    [Fact]
    public void TheRequestIsJsonWithNoKeyOrExtras()
    {
        var operation = RangeScanCreateOperation.Create(3, new ScanRequest(0, false, ScanTerm.Minimum(), ScanTerm.Maximum(), null, null, TimeSpan.Zero));
        Assert.Equal(Opcode.RangeScanCreate, operation.Opcode);
        Assert.Equal((byte)Datatype.Json, operation.Request.Written[5]);
    }
}
