using System.Text.Json;
using Tern.Cli.Commands;

namespace Tern.Cli.Tests;

/// <summary>cbimport json's key expressions, by the examples of its documentation (KEY GENERATORS).</summary>
public class KeyTemplateTests
{
    private static readonly JsonElement Alice = JsonDocument.Parse(
        """{"name":"alice","age":40,"address":{"street":"Broadway","country":"USA"},"address.country":"dotted","ok":true,"tags":[1]}""").RootElement;

    private static string Render(KeyTemplate template, JsonElement document) =>
        template.Render(document, out var why) ?? throw new Xunit.Sdk.XunitException($"no key: {why}");

    [Fact]
    public void TheDocumentedExampleCountsFromOne()
    {
        var template = KeyTemplate.Parse("key::%name%::#MONO_INCR#");
        Assert.Equal("key::alice::1", Render(template, Alice));
        Assert.Equal("key::alice::2", Render(template, Alice));
    }

    [Theory]
    [InlineData("%address.country%", "USA")]
    [InlineData("%`address.country`%", "dotted")]
    [InlineData("%age%-%ok%", "40-true")]
    [InlineData("100%% #MONO_INCR[100]# ##%name%", "100% 100 #alice")]
    public void FieldsGeneratorsAndEscapes(string expression, string key) => Assert.Equal(key, Render(KeyTemplate.Parse(expression), Alice));

    [Fact]
    public void UuidsAreFreshEachTime()
    {
        var template = KeyTemplate.Parse("u::#UUID#");
        var first = Render(template, Alice);
        Assert.Matches("^u::[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", first);
        Assert.NotEqual(first, Render(template, Alice));
    }

    [Theory]
    [InlineData("%missing%", "field '%missing%' is missing")]
    [InlineData("%address.zip%", "field '%address.zip%' is missing")]
    [InlineData("%address%", "is object, which cannot be part of a key")]
    [InlineData("%tags%", "is array")]
    public void AFieldThatCannotMakeAKeyGivesNone(string expression, string reason)
    {
        Assert.Null(KeyTemplate.Parse(expression).Render(Alice, out var why));
        Assert.Contains(reason, why);
    }

    [Theory]
    [InlineData("key::%name", "is not closed")]
    [InlineData("#COUNTER#", "unknown generator '#COUNTER#'")]
    [InlineData("%a..b%", "empty name")]
    [InlineData("", "empty")]
    public void ABadExpressionIsAUsageError(string expression, string reason) =>
        Assert.Contains(reason, Assert.Throws<UsageException>(() => KeyTemplate.Parse(expression)).Message);
}
