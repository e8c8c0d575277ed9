using System.Text.RegularExpressions;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests;

/// <summary>
/// Tern.Client's namespaces form layers, one folder each: a file may name its own layer and the
/// ones below it, never one above (the root namespace, the public API, is left out: every layer
/// names its result and option types). A sibling namespace can only be named with a using of
/// Tern.Client.X or a qualified "X.Type" (a type declared in X, not a member such as a field
/// named like a layer), so reading the sources finds every upward reference.
/// </summary>
public partial class LayeringTests
{
    // Lowest first.
    private static readonly string[] Layers =
    [
        "Exceptions", "Security", "Timing", "Protocol", "Diagnostics", "Transcoders", "Locators", "Operations", "SubDoc", "IO", "Couchbase", "Scan",
        "Management", "Transactions",
    ];

    [Fact]
    public void NoLayerNamesAHigherOne()
    {
        var source = Path.Combine(TestData.RepositoryRoot, "dotnet", "src", "Tern.Client");
        var folders = Directory.GetDirectories(source).Select(Path.GetFileName).Where(f => f is not ("bin" or "obj")).ToArray();
        Assert.Equal(Layers.Order(), folders.Order()); // a new folder takes its place in the list
        var types = Layers.ToDictionary(layer => layer, layer => Directory
            .GetFiles(Path.Combine(source, layer), "*.cs", SearchOption.AllDirectories)
            .SelectMany(file => TypeDeclaration().Matches(File.ReadAllText(file)).Select(m => m.Groups["type"].Value))
            .ToHashSet());
        var violations = new List<string>();
        for (var layer = 0; layer < Layers.Length; layer++)
        {
            var higher = Layers[(layer + 1)..];
            foreach (var file in Directory.GetFiles(Path.Combine(source, Layers[layer]), "*.cs", SearchOption.AllDirectories))
            {
                var text = File.ReadAllText(file);
                foreach (Match match in NamespaceReference().Matches(text))
                {
                    var named = match.Groups["qualified"].Success ? match.Groups["qualified"].Value : match.Groups["name"].Value;
                    if (higher.Contains(named) && (match.Groups["qualified"].Success || types[named].Contains(match.Groups["type"].Value)))
                        violations.Add($"{Path.GetRelativePath(source, file)} names {named}: \"{match.Value}\"");
                }
            }
        }
        Assert.Empty(violations);
    }

    [Fact]
    public void TheCheckSeesAnUpwardReference()
    {
        Assert.Matches(NamespaceReference(), "using Tern.Client.Couchbase;");
        Assert.Equal("Couchbase", NamespaceReference().Match("internal Couchbase.Keyspace? Keyspace").Groups["name"].Value);
        Assert.DoesNotMatch(NamespaceReference(), "a Couchbase Server cluster");
    }

    // "Tern.Client.X" anywhere (usings, fully qualified names), or "X.Type" with X a layer's name.
    [GeneratedRegex(@"\bTern\.Client\.(?<qualified>[A-Z]\w*)|(?<![\w.])(?<name>[A-Z]\w*)\.(?<type>[A-Z]\w*)")]
    private static partial Regex NamespaceReference();

    [GeneratedRegex(@"\b(?:class|struct|interface|enum|record)\s+(?<type>[A-Z]\w*)")]
    private static partial Regex TypeDeclaration();
}
