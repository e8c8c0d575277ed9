using System.Text;
using System.Text.Json;
using Tern.Client.SubDoc;

namespace Tern.Client.Tests.SubDoc;

/// <summary>How projected paths are split into steps and assembled into one object.</summary>
public class ProjectionTests
{
    [Theory]
    [InlineData("name", "name")]
    [InlineData("address.city", "address|city")]
    [InlineData("langs[1]", "langs|[1]")]
    [InlineData("a[-1][2].b", "a|[-1]|[2]|b")]
    [InlineData("`a.b`.c", "a.b|c")]
    [InlineData("`tick``s`", "tick`s")]
    public void PathsSplitIntoFieldsAndIndexes(string path, string expected)
    {
        var segments = ProjectionPath.Parse(path);

        Assert.NotNull(segments);
        Assert.Equal(expected, string.Join("|", segments.Select(s => s.IsIndex ? $"[{s.Index}]" : s.Name)));
    }

    [Theory]
    [InlineData("")]
    [InlineData("a..b")]
    [InlineData("a[x]")]
    [InlineData("a[1")]
    [InlineData("`open")]
    [InlineData("a.")]
    [InlineData("a]b")]
    public void InvalidPathsAreRefused(string path) => Assert.Null(ProjectionPath.Parse(path));

    [Fact]
    public void PathsMergeIntoNestedObjectsAndArraysInTheOrderAsked()
    {
        var json = Assemble(("b.y", "2"), ("a", "1"), ("b.x", "\"s\""), ("c[3].d", "4"), ("c[0]", "0"), ("c[3].e", "5"));

        Assert.Equal("""{"b":{"y":2,"x":"s"},"a":1,"c":[{"d":4,"e":5},0]}""", json);
    }

    [Fact]
    public void AWholeValueCoversWhatIsInsideIt()
    {
        Assert.Equal("""{"a":{"x":1,"y":2}}""", Assemble(("a.x", "1"), ("a", """{"x":1,"y":2}"""), ("a.y", "2")));
    }

    [Fact]
    public void PathsThatContradictEachOtherOrStartWithAnIndexAreLeftOut()
    {
        Assert.Equal("""{"a":{"x":1}}""", Assemble(("a.x", "1"), ("a[0]", "2"), ("[0]", "3")));
        Assert.Equal("{}", Assemble());
    }

    private static string Assemble(params (string Path, string Json)[] paths)
    {
        var tree = new ProjectionTree();
        foreach (var (path, json) in paths)
            tree.Add(ProjectionPath.Parse(path) ?? [new PathSegment(null, 0)], Encoding.UTF8.GetBytes(json));
        var output = new System.Buffers.ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(output))
            tree.WriteTo(writer);
        return Encoding.UTF8.GetString(output.WrittenSpan);
    }
}
