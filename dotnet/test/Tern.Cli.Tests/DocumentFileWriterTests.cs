using System.Text;
using System.Text.Json;
using Tern.Cli.Commands;

namespace Tern.Cli.Tests;

public class DocumentFileWriterTests
{
    private static async Task<string> WriteAsync(DocumentFormat format, string? keyField, params (string Key, string Json)[] documents)
    {
        using var output = new MemoryStream();
        var writer = new DocumentFileWriter(output, format, keyField);
        foreach (var (key, json) in documents)
            await writer.WriteAsync(key, Encoding.UTF8.GetBytes(json));
        await writer.FinishAsync();
        return Encoding.UTF8.GetString(output.ToArray());
    }

    [Fact]
    public async Task LinesHoldADocumentEachAndAListIsOneArray()
    {
        Assert.Equal("{\"a\":1}\n[2]\n", await WriteAsync(DocumentFormat.Lines, null, ("k1", """{"a":1}"""), ("k2", "[2]")));
        var list = await WriteAsync(DocumentFormat.List, null, ("k1", """{"a":1}"""), ("k2", "[2]"));
        Assert.Equal("[\n{\"a\":1},\n[2]\n]\n", list);
        Assert.Equal(2, JsonDocument.Parse(list).RootElement.GetArrayLength());
        Assert.Equal(0, JsonDocument.Parse(await WriteAsync(DocumentFormat.List, null)).RootElement.GetArrayLength());
    }

    [Fact]
    public async Task TheKeyFieldComesFirstAndReplacesOneOfItsName()
    {
        var lines = (await WriteAsync(DocumentFormat.Lines, "id",
            ("k1", """{"a":1, "b":{"id":"nested"}}"""),
            ("k2", """{"a":2,"id":"old","c":3}"""),
            ("k3", "{ }"),
            ("k\"4", "[1,2]"),
            ("k5", """{"id" : "k5", "a":5}"""))).Split('\n', StringSplitOptions.RemoveEmptyEntries);

        Assert.Equal("""{"id":"k1","a":1, "b":{"id":"nested"}}""", lines[0]);
        Assert.Equal("""{"id":"k2","a":2,"c":3}""", lines[1]);
        Assert.Equal("""{"id":"k3"}""", lines[2]);
        Assert.Equal("""{"id":"k\u00224","value":[1,2]}""", lines[3]); // not an object: wrapped, as cbexport does
        Assert.Equal("""{"id" : "k5", "a":5}""", lines[4]); // already first and right: unchanged
        Assert.All(lines, line => JsonDocument.Parse(line));
    }
}
