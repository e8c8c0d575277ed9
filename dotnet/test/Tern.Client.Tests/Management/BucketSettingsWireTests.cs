using System.Text.Json;
using Tern.Client.Exceptions;
using Tern.Client.Management;

namespace Tern.Client.Tests.Management;

/// <summary>BucketSettings to the create/update forms and from the bucket JSON of GET /pools/default/buckets.</summary>
public class BucketSettingsWireTests
{
    // The shape ternd and Couchbase Server answer (the plan's REST contract), trimmed of what is not read.
    private const string TravelBucket = """
        {"name":"travel","uuid":"0f9a","bucketType":"membase","quota":{"ram":268435456,"rawRAM":268435456},
         "replicaNumber":0,"evictionPolicy":"fullEviction","maxTTL":3600,"durabilityMinLevel":"majority",
         "conflictResolutionType":"seqno","storageBackend":"couchstore","compressionMode":"passive","numVBuckets":1024,
         "controllers":{"flush":"/pools/default/buckets/travel/controller/doFlush"},
         "basicStats":{"itemCount":3,"memUsed":1234,"opsPerSec":0.5,"quotaPercentUsed":0.1},"nodes":[],"bucketCapabilities":["collections"]}
        """;

    private static BucketSettings Parse(string json)
    {
        using var document = JsonDocument.Parse(json);
        return BucketSettingsWire.Parse(document.RootElement);
    }

    [Fact]
    public void ABucketIsReadWithEverySetting()
    {
        var bucket = Parse(TravelBucket);
        Assert.Equal("travel", bucket.Name);
        Assert.Equal(BucketType.Couchbase, bucket.BucketType);
        Assert.Equal(256, bucket.RamQuotaMB);
        Assert.True(bucket.FlushEnabled);
        Assert.Equal(0, bucket.NumReplicas);
        Assert.Equal(EvictionPolicyType.FullEviction, bucket.EvictionPolicy);
        Assert.Equal(3600, bucket.MaxTtl);
        Assert.Equal(DurabilityLevel.Majority, bucket.DurabilityMinimumLevel);
        Assert.Equal(ConflictResolutionType.SequenceNumber, bucket.ConflictResolutionType);
        Assert.Equal(StorageBackend.Couchstore, bucket.StorageBackend);
        Assert.Equal(CompressionMode.Passive, bucket.CompressionMode);
        Assert.Equal(1024u, bucket.NumVBuckets);
    }

    [Fact]
    public void WithoutAFlushControllerFlushIsOffAndOptionalFieldsMayBeAbsent()
    {
        var bucket = Parse("""{"name":"cache","bucketType":"ephemeral","quota":{"rawRAM":104857600.0}}""");
        Assert.Equal(BucketType.Ephemeral, bucket.BucketType);
        Assert.Equal(100, bucket.RamQuotaMB);
        Assert.False(bucket.FlushEnabled);
        Assert.Null(bucket.EvictionPolicy);
        Assert.Equal(DurabilityLevel.None, bucket.DurabilityMinimumLevel);
    }

    [Theory]
    [InlineData("""{"bucketType":"membase"}""", "no \"name\"")]
    [InlineData("""{"name":"b"}""", "no \"bucketType\"")]
    [InlineData("""{"name":"b","bucketType":"couchdb"}""", "\"bucketType\" is \"couchdb\"")]
    [InlineData("""{"name":"b","bucketType":"membase","maxTTL":"1"}""", "\"maxTTL\" is not a number")]
    [InlineData("""[1]""", "not a JSON object")]
    public void AMalformedBucketIsRefusedNamingTheField(string json, string why) =>
        Assert.Contains(why, Assert.Throws<FormatException>(() => Parse(json)).Message);

    [Fact]
    public void TheCreateFormCarriesEverySettingThatIsSet()
    {
        var form = BucketSettingsWire.CreateForm(new BucketSettings
        {
            Name = "travel", RamQuotaMB = 256, FlushEnabled = true, EvictionPolicy = EvictionPolicyType.FullEviction, MaxTtl = 60,
            DurabilityMinimumLevel = DurabilityLevel.PersistToMajority, ConflictResolutionType = ConflictResolutionType.SequenceNumber,
        });
        Assert.Equal(
        [
            new("name", "travel"), new("bucketType", "couchbase"), new("ramQuotaMB", "256"), new("flushEnabled", "1"),
            new("replicaNumber", "0"), new("evictionPolicy", "fullEviction"), new("maxTTL", "60"),
            new("durabilityMinLevel", "persistToMajority"), new KeyValuePair<string, string>("conflictResolutionType", "seqno"),
        ], form);
    }

    [Fact]
    public void TheUpdateFormLeavesOutWhatCannotChange()
    {
        var form = BucketSettingsWire.UpdateForm(new BucketSettings
        {
            Name = "cache", BucketType = BucketType.Ephemeral, RamQuotaMB = 128, ConflictResolutionType = ConflictResolutionType.Timestamp,
        });
        Assert.Equal(["ramQuotaMB", "flushEnabled", "replicaNumber", "maxTTL", "durabilityMinLevel"], form.Select(f => f.Key));
    }

    [Theory]
    [InlineData("", BucketType.Couchbase, 100, null, "needs a name")]
    [InlineData("b", BucketType.Couchbase, 0, null, "RamQuotaMB must be positive")]
    [InlineData("b", BucketType.Couchbase, 100, EvictionPolicyType.NoEviction, "does not apply to a Couchbase bucket")]
    [InlineData("b", BucketType.Ephemeral, 100, EvictionPolicyType.ValueOnly, "does not apply to a Ephemeral bucket")]
    public void SettingsTheServerWouldRefuseAreRefusedBeforeSending(string name, BucketType type, long quota,
        EvictionPolicyType? eviction, string why)
    {
        var settings = new BucketSettings { Name = name, BucketType = type, RamQuotaMB = quota, EvictionPolicy = eviction };
        Assert.Contains(why, Assert.Throws<InvalidArgumentException>(() => BucketSettingsWire.CreateForm(settings)).Message);
    }
}
