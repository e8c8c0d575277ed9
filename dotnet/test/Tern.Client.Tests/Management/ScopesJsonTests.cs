using System.Text.Json;
using Tern.Client.Management;

namespace Tern.Client.Tests.Management;

public class ScopesJsonTests
{
    private static List<ScopeSpec> Parse(string json)
    {
        using var document = JsonDocument.Parse(json);
        return ScopesJson.Parse(document.RootElement);
    }

    [Fact]
    public void ScopesAndTheirCollectionsAreRead()
    {
        var scopes = Parse("""
            {"uid":"a","scopes":[
              {"name":"_default","uid":"0","collections":[{"name":"_default","uid":"0"}]},
              {"name":"app","uid":"8","collections":[{"name":"users","uid":"8","maxTTL":0},{"name":"sessions","uid":"9","maxTTL":3600,"history":false}]}]}
            """);
        Assert.Equal(["_default", "app"], scopes.Select(s => s.Name));
        var app = scopes[1];
        Assert.Equal(["users", "sessions"], app.Collections.Select(c => c.Name));
        Assert.All(app.Collections, c => Assert.Equal("app", c.ScopeName));
        Assert.Equal(TimeSpan.Zero, app.Collections[0].MaxExpiry);
        Assert.Equal(TimeSpan.FromHours(1), app.Collections[1].MaxExpiry);
        Assert.False(app.Collections[1].History);
        Assert.Null(scopes[0].Collections[0].MaxExpiry);
    }

    [Theory]
    [InlineData("""{"uid":"1"}""", "no \"scopes\" array")]
    [InlineData("""{"scopes":[{"collections":[]}]}""", "a scope has no \"name\"")]
    [InlineData("""{"scopes":[{"name":"s"}]}""", "scope 's' has no \"collections\"")]
    [InlineData("""{"scopes":[{"name":"s","collections":[{"name":"c","maxTTL":"x"}]}]}""", "'s.c' has a \"maxTTL\" that is not")]
    public void AMalformedAnswerIsRefusedNamingWhatIsWrong(string json, string why) =>
        Assert.Contains(why, Assert.Throws<FormatException>(() => Parse(json)).Message);
}
