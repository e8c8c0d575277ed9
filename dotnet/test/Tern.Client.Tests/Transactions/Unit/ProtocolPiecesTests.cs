using System.Text.Json;
using Tern.Client.Transactions;

namespace Tern.Client.Tests.Transactions.Unit;

/// <summary>The protocol's small facts: the ATR names every SDK uses, the server-clock formats, forward compatibility.</summary>
public class ProtocolPiecesTests
{
    // Entries of the official SDKs' table (couchbase-cxx-client core/transactions/atr_ids.cxx).
    [Theory]
    [InlineData(0, "_txn:atr-0-#14")]
    [InlineData(1, "_txn:atr-1-#10b6")]
    [InlineData(2, "_txn:atr-2-#cc8")]
    [InlineData(9, "_txn:atr-9-#0")]
    [InlineData(22, "_txn:atr-22-#59e8")]
    [InlineData(43, "_txn:atr-43-#5")]
    [InlineData(1008, "_txn:atr-1008-#2")]
    [InlineData(1023, "_txn:atr-1023-#10c2")]
    public void AtrIdsAreTheOfficialSdksOnes(int vbucket, string id) => Assert.Equal(id, AtrIds.ForVBucket(vbucket));

    [Fact]
    public void EveryAtrLivesInItsOwnVBucket()
    {
        var ids = AtrIds.All().ToList();
        Assert.Equal(1024, ids.Distinct().Count());
        for (var vbucket = 0; vbucket < ids.Count; vbucket++)
            Assert.Equal(vbucket, AtrIds.VBucketOf(ids[vbucket]));
        Assert.Equal(AtrIds.ForVBucket(AtrIds.VBucketOf("user::1")), AtrIds.ForKey("user::1"));
    }

    [Fact]
    public void AMacroCasReadsAsMillisecondsSinceTheEpoch()
    {
        // The server writes the CAS's bytes in little-endian order: 0x155cd21da7580000 ns.
        Assert.Equal(1539336197457, ServerClock.MillisecondsOfMacroCas("0x000058a71dd25c15"));
        Assert.Null(ServerClock.MillisecondsOfMacroCas("not a cas"));
        Assert.Null(ServerClock.MillisecondsOfMacroCas(null));
        Assert.Equal(1_700_000_000_000, ServerClock.MillisecondsOfHlc("1700000000"));
    }

    [Fact]
    public void AnAttemptExpiresOnlyPastItsTimeAndTheMargin()
    {
        var entry = new AtrEntry("a", "t", AttemptState.Pending, StartMs: 10_000, ExpiresAfterMs: 15_000, null, [], [], [], ForwardCompat.None);
        Assert.False(entry.HasExpired(26_500, AttemptCleaner.SafetyMargin));
        Assert.True(entry.HasExpired(26_501, AttemptCleaner.SafetyMargin));
        Assert.True((entry with { StartMs = null }).HasExpired(1_700_000_000_000, AttemptCleaner.SafetyMargin)); // no start time: ancient
    }

    [Fact]
    public void ForwardCompatibilityStopsOnlyWhatThisClientDoesNotSupport()
    {
        Assert.Null(Compat("""{"G":[{"e":"BS","b":"f"}]}""").Check("G"));
        Assert.Null(Compat("""{"G":[{"p":"2.0","b":"f"}]}""").Check("G"));
        Assert.Null(Compat("""{"CL_E":[{"e":"ZZ","b":"f"}]}""").Check("G")); // another stage
        var failFast = Compat("""{"G":[{"p":"2.1","b":"f"}]}""").Check("G");
        Assert.NotNull(failFast);
        Assert.False(failFast.Value.Retry);
        var retry = Compat("""{"WW_R":[{"e":"ZZ","b":"r","ra":250}]}""").Check("WW_R");
        Assert.Equal((true, TimeSpan.FromMilliseconds(250)), (retry!.Value.Retry, retry.Value.Delay));
    }

    [Fact]
    public void JsonFieldsReadOneLevelAndAnythingElseIsNull()
    {
        var document = """{"CAS":"0x01","nested":{"flags":7},"list":[1,{"x":2}],"flags":33554432,"exptime":0,"revid":"2"}"""u8;
        Assert.Equal("0x01", JsonFields.String(document, "CAS"u8));
        Assert.Equal(33554432u, JsonFields.UInt32(document, "flags"u8)); // not the nested one
        Assert.Equal(0u, JsonFields.UInt32(document, "exptime"u8));
        Assert.Null(JsonFields.String(document, "flags"u8)); // a number, asked as a string
        Assert.Null(JsonFields.UInt32(document, "revid"u8));
        Assert.Null(JsonFields.String(document, "missing"u8));
        Assert.Null(JsonFields.String("[1,2]"u8, "CAS"u8));
        Assert.Null(JsonFields.String("{\"CAS\":"u8, "CAS"u8)); // cut short
        Assert.Null(JsonFields.UInt32("""{"uf":-1}"""u8, "uf"u8));
        Assert.Equal("replace", JsonFields.String("\"replace\""u8));
        Assert.Null(JsonFields.String(""u8));
        Assert.Null(JsonFields.String("12"u8));
    }

    private static ForwardCompat Compat(string json) => ForwardCompat.From(JsonDocument.Parse(json).RootElement);
}
