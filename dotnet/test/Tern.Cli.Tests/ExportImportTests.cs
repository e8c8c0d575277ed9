using System.Text.Json;

namespace Tern.Cli.Tests;

/// <summary>
/// `tern import` and `tern export` against a real ternd, with files in cbimport's and cbexport's
/// formats (the samples of their documentation, cbimport-json.html and cbexport-json.html). Each
/// test works in its own collection, since an export reads a whole collection.
/// </summary>
public sealed class ExportImportTests(DevTerndFixture ternd) : IClassFixture<DevTerndFixture>, IDisposable
{
    private readonly string _directory = Directory.CreateTempSubdirectory("tern-export-import-").FullName;

    public void Dispose() => Directory.Delete(_directory, recursive: true);

    private Task<CliRun> Run(string collection, params string[] args) => CliRun.RunAsync(
        [.. args, "--collection", collection, "--server", ternd.CouchbaseUrl, "-u", DevTerndFixture.User, "-p", DevTerndFixture.Password, "--timeout", "20"]);

    private string PathOf(string name) => Path.Combine(_directory, name);

    /// <summary>The documents of a lines or list file, each as its compact JSON text, sorted.</summary>
    private static string[] DocumentsOf(string path, bool list)
    {
        var documents = list
            ? JsonDocument.Parse(File.ReadAllText(path)).RootElement.EnumerateArray().Select(e => e.GetRawText())
            : File.ReadAllLines(path).Where(line => line.Length > 0).Select(line => JsonDocument.Parse(line).RootElement.GetRawText());
        return documents.Select(text => JsonSerializer.Serialize(JsonDocument.Parse(text).RootElement)).Order().ToArray();
    }

    [Fact]
    public async Task ALinesFileImportsWithItsKeyFieldAndExportsBackTheSame()
    {
        // cbimport's lines sample, with the key in the document.
        File.WriteAllLines(PathOf("in.json"),
        [
            """{"key": "mykey1", "value": "myvalue1"}""",
            """{"key": "mykey2", "value": "myvalue2"}""",
            """{"key": "mykey3", "value": "myvalue3"}""",
            """{"key": "mykey4", "value": "myvalue4"}""",
        ]);
        var import = await Run("app.users", "import", "--format", "lines", "--input", PathOf("in.json"), "--generate-key", "%key%");
        Assert.True(import.ExitCode == ExitCodes.Success, import.Error);
        Assert.Contains("imported 4 documents", import.Output);
        Assert.Contains("0 skipped, 0 failed", import.Output);

        var get = await Run("app.users", "get", "mykey3");
        Assert.Equal("myvalue3", JsonDocument.Parse(get.Output).RootElement.GetProperty("value").GetString());

        var export = await Run("app.users", "export", "--format", "lines", "--output", PathOf("out.json"), "--include-key", "key");
        Assert.True(export.ExitCode == ExitCodes.Success, export.Error);
        Assert.Contains("exported 4 documents", export.Output);
        Assert.Equal(DocumentsOf(PathOf("in.json"), list: false), DocumentsOf(PathOf("out.json"), list: false));
    }

    [Fact]
    public async Task AListSpreadOverLinesImportsWithGeneratedKeysAndExportsAsAList()
    {
        // cbimport's list sample (an element over several lines), and its key generator example.
        File.WriteAllText(PathOf("in.json"), """
            [
              {
                "name": "alice",
                "age": 40,
                "address": {"street": "Broadway", "country": "USA"}
              },
              {"name": "bob", "age": 39, "address": {"street": "High St", "country": "UK"}}
            ]
            """);
        var import = await Run("app.orders", "import", "--format", "list", "--input", PathOf("in.json"),
            "--generate-key", "key::%name%::#MONO_INCR#");
        Assert.True(import.ExitCode == ExitCodes.Success, import.Error);

        Assert.Equal(ExitCodes.Success, (await Run("app.orders", "get", "key::alice::1")).ExitCode);
        Assert.Equal("UK", JsonDocument.Parse((await Run("app.orders", "get", "key::bob::2")).Output)
            .RootElement.GetProperty("address").GetProperty("country").GetString());

        var export = await Run("app.orders", "export", "--format", "list", "--output", PathOf("out.json"));
        Assert.True(export.ExitCode == ExitCodes.Success, export.Error);
        Assert.Equal(DocumentsOf(PathOf("in.json"), list: true), DocumentsOf(PathOf("out.json"), list: true));
    }

    [Fact]
    public async Task AnExportToStandardOutputHoldsOnlyTheDocuments()
    {
        File.WriteAllLines(PathOf("in.json"), ["""{"id": "s1"}""", """{"id": "s2"}"""]);
        Assert.Equal(ExitCodes.Success,
            (await Run("_default._default", "import", "--format", "lines", "--input", PathOf("in.json"), "--generate-key", "stdout::%id%")).ExitCode);

        // The default collection holds other tests' documents too: only these two are looked for.
        var export = await Run("_default._default", "export", "--format", "list", "--output", "-");

        Assert.True(export.ExitCode == ExitCodes.Success, export.Error);
        var ids = JsonDocument.Parse(export.Output).RootElement.EnumerateArray()
            .Select(d => d.ValueKind == JsonValueKind.Object && d.TryGetProperty("id", out var id) ? id.GetString() : null).ToArray();
        Assert.Contains("s1", ids);
        Assert.Contains("s2", ids);
        Assert.Contains("exported", export.Error);
    }

    [Fact]
    public async Task LinesThatAreNotJsonOrHaveNoKeyAreSkippedByNumberAndTheRestIsImported()
    {
        File.WriteAllLines(PathOf("in.json"),
        [
            """{"id": "a", "n": 1}""",
            """{"id": "b", "n": """,
            "",
            """{"n": 3}""",
            """{"id": "d", "n": 4}""",
        ]);
        var import = await Run("_default._default", "import", "--format", "lines", "--input", PathOf("in.json"), "--generate-key", "skip-test::%id%");

        Assert.Equal(ExitCodes.OperationFailed, import.ExitCode);
        Assert.Contains("imported 2 documents", import.Output);
        Assert.Contains("2 skipped, 0 failed", import.Output);
        Assert.Contains("skipped line 2: not JSON", import.Error);
        Assert.Contains("skipped line 4: no key: field '%id%' is missing", import.Error);
        Assert.Equal(ExitCodes.Success, (await Run("_default._default", "get", "skip-test::d")).ExitCode);
    }

    [Fact]
    public async Task BadArgumentsAreUsageErrors()
    {
        var noFormat = await Run("app.users", "export", "--output", PathOf("x.json"));
        Assert.Equal((ExitCodes.Usage, true), (noFormat.ExitCode, noFormat.Error.Contains("--format lines|list is required")));
        var noKey = await Run("app.users", "import", "--format", "lines", "--input", PathOf("x.json"));
        Assert.Equal((ExitCodes.Usage, true), (noKey.ExitCode, noKey.Error.Contains("--generate-key EXPR is required")));
        var classic = await CliRun.RunAsync("export", "--format", "lines", "--output", PathOf("x.json"), "--server", ternd.Address);
        Assert.Equal((ExitCodes.Usage, true), (classic.ExitCode, classic.Error.Contains("need a couchbase:// server")));
    }
}
