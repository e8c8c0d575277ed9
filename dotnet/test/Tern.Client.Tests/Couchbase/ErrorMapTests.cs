using System.Globalization;
using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase;

/// <summary>ErrorMap: the GET_ERROR_MAP wire format, and the built-in map against the shared statuses table.</summary>
public class ErrorMapTests
{
    // The test's own spelling table, so a typo in the SDK's is caught rather than copied.
    private static readonly Dictionary<string, ErrorAttributes> AttributeNames = new()
    {
        ["success"] = ErrorAttributes.Success,
        ["item-only"] = ErrorAttributes.ItemOnly,
        ["invalid-input"] = ErrorAttributes.InvalidInput,
        ["fetch-config"] = ErrorAttributes.FetchConfig,
        ["conn-state-invalidated"] = ErrorAttributes.ConnStateInvalidated,
        ["auth"] = ErrorAttributes.Auth,
        ["special-handling"] = ErrorAttributes.SpecialHandling,
        ["support"] = ErrorAttributes.Support,
        ["temp"] = ErrorAttributes.Temp,
        ["internal"] = ErrorAttributes.Internal,
        ["retry-now"] = ErrorAttributes.RetryNow,
        ["retry-later"] = ErrorAttributes.RetryLater,
        ["subdoc"] = ErrorAttributes.Subdoc,
        ["dcp"] = ErrorAttributes.Dcp,
        ["auto-retry"] = ErrorAttributes.AutoRetry,
        ["item-locked"] = ErrorAttributes.ItemLocked,
        ["item-deleted"] = ErrorAttributes.ItemDeleted,
        ["rate-limit"] = ErrorAttributes.RateLimit,
    };

    private static ErrorMap Parse(string json) => ErrorMap.Parse(Encoding.UTF8.GetBytes(json));

    [Fact]
    public void ParsesAHandwrittenMap()
    {
        var map = Parse("""
            {"version":2,"revision":7,"errors":{
              "0":{"name":"SUCCESS","desc":"Success","attrs":["success"]},
              "86":{"name":"ETMPFAIL","desc":"Busy","attrs":["temp","retry-later","some-future-attr"]},
              "ff01":{"name":"RATE","desc":"","attrs":["rate-limit","auto-retry"],
                      "retry":{"strategy":"exponential","interval":10,"after":100,"max-duration":5000}},
              "A2":{"name":"UPPER","attrs":[]}
            }}
            """);
        Assert.Equal(2, map.Version);
        Assert.Equal(7, map.Revision);
        Assert.Equal(ErrorAttributes.Success, map.AttributesOf(0x00));
        Assert.Equal(ErrorAttributes.Temp | ErrorAttributes.RetryLater, map.AttributesOf(0x86));
        Assert.Equal("ETMPFAIL", map.NameOf(0x86));
        Assert.Equal(ErrorAttributes.RateLimit | ErrorAttributes.AutoRetry, map.AttributesOf(0xff01));
        Assert.Equal("UPPER", map.NameOf(0xa2));
        Assert.Equal(ErrorAttributes.None, map.AttributesOf(0xa2));
        Assert.Equal(ErrorAttributes.None, map.AttributesOf(0x01));
        Assert.Null(map.NameOf(0x01));
    }

    [Fact]
    public void EveryAttributeNameMapsToItsFlag()
    {
        var attrs = string.Join(",", AttributeNames.Keys.Select(name => $"\"{name}\""));
        var map = Parse("""{"version":2,"revision":1,"errors":{"1":{"name":"ALL","attrs":[""" + attrs + "]}}}");
        var all = AttributeNames.Values.Aggregate(ErrorAttributes.None, (sum, flag) => sum | flag);
        Assert.Equal(all, map.AttributesOf(0x01));
        Assert.Equal(18, AttributeNames.Count);
        foreach (var (name, flag) in AttributeNames)
        {
            var one = Parse("""{"version":2,"revision":1,"errors":{"1":{"attrs":[""" + $"\"{name}\"" + "]}}}");
            Assert.Equal(flag, one.AttributesOf(0x01));
        }
    }

    [Fact]
    public void DefaultKnowsTheCommonStatuses()
    {
        Assert.Equal(ErrorAttributes.ItemOnly, ErrorMap.Default.AttributesOf(0x01));
        Assert.Equal("KEY_ENOENT", ErrorMap.Default.NameOf(0x01));
        Assert.True(ErrorMap.Default.AttributesOf(0x86).HasFlag(ErrorAttributes.Temp));
        Assert.Equal(2, ErrorMap.Default.Version);
        Assert.Same(ErrorMap.Default, ErrorMap.Default);
    }

    [Fact]
    public void DefaultAgreesWithEveryRowOfTheStatusesTable()
    {
        using var table = TestData.Load("mcbp/statuses.json");
        Assert.Equal(table.RootElement.GetProperty("error_map").GetProperty("revision").GetInt32(), ErrorMap.Default.Revision);
        var rows = 0;
        foreach (var row in table.RootElement.GetProperty("statuses").EnumerateArray())
        {
            var code = row.GetProperty("code").GetString()!;
            var status = ushort.Parse(code.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
            var entry = row.GetProperty("error_map");
            var expected = entry.GetProperty("attrs").EnumerateArray()
                .Aggregate(ErrorAttributes.None, (sum, attr) => sum | AttributeNames[attr.GetString()!]);
            Assert.True(expected != ErrorAttributes.None, code);
            Assert.Equal(entry.GetProperty("name").GetString(), ErrorMap.Default.NameOf(status));
            Assert.Equal(expected, ErrorMap.Default.AttributesOf(status));
            rows++;
        }
        Assert.True(rows > 50, $"only {rows} rows");
    }

    [Theory]
    [InlineData("", "not valid JSON")]
    [InlineData("{\"version\":2,", "not valid JSON")]
    [InlineData("[]", "not a JSON object")]
    [InlineData("{\"revision\":1,\"errors\":{}}", "\"version\"")]
    [InlineData("{\"version\":\"2\",\"revision\":1,\"errors\":{}}", "\"version\" is not an integer")]
    [InlineData("{\"version\":2,\"errors\":{}}", "\"revision\"")]
    [InlineData("{\"version\":2,\"revision\":1}", "\"errors\"")]
    [InlineData("{\"version\":2,\"revision\":1,\"errors\":[]}", "\"errors\" is not a JSON object")]
    [InlineData("{\"version\":2,\"revision\":1,\"errors\":{\"xyz\":{}}}", "\"xyz\"")]
    [InlineData("{\"version\":2,\"revision\":1,\"errors\":{\"10000\":{}}}", "\"10000\"")]
    [InlineData("{\"version\":2,\"revision\":1,\"errors\":{\"1\":[]}}", "entry \"1\"")]
    [InlineData("{\"version\":2,\"revision\":1,\"errors\":{\"1\":{\"attrs\":\"temp\"}}}", "\"attrs\" is not an array")]
    [InlineData("{\"version\":2,\"revision\":1,\"errors\":{\"1\":{\"attrs\":[1]}}}", "not a string")]
    [InlineData("{\"version\":2,\"revision\":1,\"errors\":{\"1\":{\"name\":5}}}", "\"name\" is not a string")]
    public void MalformedMapsThrowFormatExceptionNamingTheProblem(string json, string expected)
    {
        var error = Assert.Throws<FormatException>(() => Parse(json));
        Assert.Contains(expected, error.Message);
    }
}
