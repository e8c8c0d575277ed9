using System.Buffers.Binary;
using System.Globalization;
using System.Text.Json.Nodes;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>
/// The sub-document scenario of issue 10 that the official Node SDK passes against ternd
/// (compat/test/subdoc.test.mjs), through Tern.Client over couchbase:// against one ternd started
/// from server/config/dev.toml; on the default collection and on app.users by the subclasses, each
/// with its own server.
/// </summary>
public abstract class CouchbaseSubDocScenarioTests(CouchbaseFixture fixture)
{
    protected CouchbaseFixture Fixture { get; } = fixture;

    protected abstract Collection Target { get; }

    private const string Ada = """{"name":"Ada","address":{"city":"Paris"},"langs":["en","fr"],"n":42}""";

    private static string NewKey(string what) => $"subdoc-{what}-{Guid.NewGuid():N}";

    private async Task<string> StoredAsync(string what, string json = Ada, UpsertOptions? options = null)
    {
        var key = NewKey(what);
        await Target.UpsertAsync(key, JsonNode.Parse(json), options);
        return key;
    }

    private async Task<(JsonNode? Content, ulong Cas)> ReadAsync(string key)
    {
        using var read = await Target.GetAsync(key);
        return (read.ContentAs<JsonNode>(), read.Cas);
    }

    private static void AssertJson(string expected, JsonNode? actual) =>
        Assert.True(JsonNode.DeepEquals(JsonNode.Parse(expected), actual), $"expected {expected}, got {actual?.ToJsonString()}");

    [Fact]
    public async Task LookupInGetExistsAndCountAndAMissingPathFailsOnlyItsOwnEntry()
    {
        var key = await StoredAsync("lookup");

        using var result = await Target.LookupInAsync(key, specs => specs
            .Get("address.city").Exists("name").Count("langs").Get("nowhere.at.all").Get("langs[-1]"));

        Assert.Equal("Paris", result.ContentAs<string>(0));
        Assert.True(result.ContentAs<bool>(1));
        Assert.Equal(2, result.ContentAs<int>(2));
        var missing = Assert.Throws<PathNotFoundException>(() => result.ContentAs<string>(3));
        Assert.Equal((key, "nowhere.at.all", 3), (missing.Key, missing.Path, missing.Index));
        Assert.False(result.Exists(3));
        Assert.Equal("fr", result.ContentAs<string>(4));
        Assert.Equal((await ReadAsync(key)).Cas, result.Cas);
    }

    [Fact]
    public async Task LookupInExistsOfAMissingPathIsFalseAndAMissingDocumentIsDocumentNotFound()
    {
        var key = await StoredAsync("exists");

        using (var result = await Target.LookupInAsync(key, specs => specs.Exists("nope")))
            Assert.False(result.ContentAs<bool>(0));
        var absent = NewKey("absent");
        var error = await Assert.ThrowsAsync<DocumentNotFoundException>(() => Target.LookupInAsync(absent, specs => specs.Get("name")).AsTask());
        Assert.Equal(absent, error.Key);
    }

    [Fact]
    public async Task MutateInUpsertWithCreatePathBuildsTheMissingParents()
    {
        var key = await StoredAsync("upsert");

        using var result = await Target.MutateInAsync(key, specs => specs.Upsert("address.geo.lat", 48.85, createPath: true));

        Assert.NotEqual(0ul, result.Cas);
        Assert.True(result.MutationToken is { SequenceNumber: > 0 }, $"mutateIn's token: {result.MutationToken}");
        var (content, cas) = await ReadAsync(key);
        AssertJson("""{"name":"Ada","address":{"city":"Paris","geo":{"lat":48.85}},"langs":["en","fr"],"n":42}""", content);
        Assert.Equal(result.Cas, cas);
    }

    [Fact]
    public async Task MutateInInsertOnAnExistingPathIsPathExistsAndChangesNothing()
    {
        var key = await StoredAsync("insert");
        var before = await ReadAsync(key);

        var error = await Assert.ThrowsAsync<PathExistsException>(() => Target.MutateInAsync(key, specs => specs.Insert("name", "Grace")).AsTask());

        Assert.Equal((key, "name", 0), (error.Key, error.Path, error.Index));
        var after = await ReadAsync(key);
        AssertJson(Ada, after.Content);
        Assert.Equal(before.Cas, after.Cas);
    }

    [Fact]
    public async Task MutateInRemoveTheArrayOperationsAndIncrementInOneRequest()
    {
        var key = await StoredAsync("arrays");

        using (var result = await Target.MutateInAsync(key, specs => specs
                   .Remove("address")
                   .ArrayAppend("langs", "de")
                   .ArrayPrepend("langs", "it")
                   .ArrayInsert("langs[1]", "es")
                   .ArrayAddUnique("langs", "pt")
                   .Increment("n", 5)))
        {
            Assert.Equal(47, result.ContentAs<long>(5));
        }

        AssertJson("""{"name":"Ada","langs":["it","es","en","fr","de","pt"],"n":47}""", (await ReadAsync(key)).Content);
        var duplicate = await Assert.ThrowsAsync<PathExistsException>(
            () => Target.MutateInAsync(key, specs => specs.ArrayAddUnique("langs", "en")).AsTask());
        Assert.Equal(("langs", 0), (duplicate.Path, duplicate.Index));
    }

    [Fact]
    public async Task AMultiMutationWithOneFailingSpecChangesNothing()
    {
        var key = await StoredAsync("atomic");
        var before = await ReadAsync(key);

        var error = await Assert.ThrowsAsync<PathNotFoundException>(() => Target.MutateInAsync(key, specs => specs
            .Upsert("added", 1).Replace("missing.path", 2).Increment("n", 1)).AsTask());

        Assert.Equal((key, "missing.path", 1), (error.Key, error.Path, error.Index));
        Assert.Contains("'missing.path' (spec 1)", error.Message);
        var after = await ReadAsync(key);
        AssertJson(Ada, after.Content);
        Assert.Equal(before.Cas, after.Cas);
    }

    [Fact]
    public async Task StoreSemanticsUpsertCreatesAndInsertRefusesAnExistingDocument()
    {
        var key = NewKey("semantics");

        (await Target.MutateInAsync(key, specs => specs.Upsert("made", true), new MutateInOptions { StoreSemantics = StoreSemantics.Upsert }))
            .Dispose();

        AssertJson("""{"made":true}""", (await ReadAsync(key)).Content);
        var error = await Assert.ThrowsAsync<DocumentExistsException>(() => Target.MutateInAsync(key, specs => specs.Upsert("again", true),
            new MutateInOptions { StoreSemantics = StoreSemantics.Insert }).AsTask());
        Assert.Equal(key, error.Key);
        await Assert.ThrowsAsync<DocumentNotFoundException>(
            () => Target.MutateInAsync(NewKey("replace-missing"), specs => specs.Upsert("a", 1)).AsTask());
    }

    [Fact]
    public async Task XattrsAreWrittenAndReadWithXattrSpecsAndNeverShownByAPlainGet()
    {
        var key = await StoredAsync("xattr");

        (await Target.MutateInAsync(key, specs => specs
            .Upsert("meta.tag", "blue", createPath: true, isXattr: true)
            .Upsert("seen", true))).Dispose();
        using var result = await Target.LookupInAsync(key, specs => specs
            .Get("meta", isXattr: true).Get("meta.tag", isXattr: true).Get("seen"));

        AssertJson("""{"tag":"blue"}""", result.ContentAs<JsonNode>(0));
        Assert.Equal("blue", result.ContentAs<string>(1));
        Assert.True(result.ContentAs<bool>(2));
        AssertJson("""{"name":"Ada","address":{"city":"Paris"},"langs":["en","fr"],"n":42,"seen":true}""", (await ReadAsync(key)).Content);
    }

    [Fact]
    public async Task AMacroWritesTheMutationsCasIntoAnXattr()
    {
        var key = await StoredAsync("macro");

        using var written = await Target.MutateInAsync(key, specs => specs.Upsert("txn.cas", MutationMacro.Cas, createPath: true));
        using var read = await Target.LookupInAsync(key, specs => specs.Get("txn.cas", isXattr: true).Get("$document.CAS", isXattr: true));

        Assert.Equal(written.Cas, read.Cas);
        // "0x" and 16 hex digits, as kv_engine writes it: the macro's bytes are the CAS's little-endian
        // ones, $document.CAS reads as the number.
        var macro = read.ContentAs<string>(0)!;
        var document = read.ContentAs<string>(1)!;
        Assert.Equal(written.Cas, ulong.Parse(document.AsSpan(2), NumberStyles.HexNumber));
        Assert.Equal(written.Cas, BinaryPrimitives.ReverseEndianness(ulong.Parse(macro.AsSpan(2), NumberStyles.HexNumber)));
    }

    [Fact]
    public async Task GetWithExpiryAnswersTheExpiryAndWithAProjectionOnlyThosePaths()
    {
        var key = await StoredAsync("expiry", options: new UpsertOptions { Expiry = TimeSpan.FromHours(1) });
        var now = DateTime.UtcNow;

        using (var withExpiry = await Target.GetAsync(key, new GetOptions { WithExpiry = true }))
        {
            AssertJson(Ada, withExpiry.ContentAs<JsonNode>());
            // Generous bounds: an hour from now, give or take five minutes of a slow machine.
            Assert.InRange(withExpiry.ExpiryTime!.Value, now.AddMinutes(55), now.AddMinutes(65));
        }
        using (var projected = await Target.GetAsync(key, new GetOptions { Projection = ["name", "address.city"] }))
            AssertJson("""{"name":"Ada","address":{"city":"Paris"}}""", projected.ContentAs<JsonNode>());
        using (var noExpiry = await Target.GetAsync(await StoredAsync("no-expiry"), new GetOptions { WithExpiry = true }))
            Assert.Null(noExpiry.ExpiryTime);
    }

    // Beyond the Node scenario: what else the SDK's options and errors mean against a real server.

    [Fact]
    public async Task SystemXattrsSurviveARemoveAndAreReadWithAccessDeleted()
    {
        var key = await StoredAsync("tombstone");
        (await Target.MutateInAsync(key, specs => specs.Upsert("_txn.id", "t1", createPath: true, isXattr: true))).Dispose();
        await Target.RemoveAsync(key);

        using var result = await Target.LookupInAsync(key, specs => specs.Get("_txn.id", isXattr: true),
            new LookupInOptions { AccessDeleted = true });

        Assert.True(result.IsDeleted);
        Assert.Equal("t1", result.ContentAs<string>(0));
        await Assert.ThrowsAsync<DocumentNotFoundException>(() => Target.LookupInAsync(key, specs => specs.Get("_txn.id", isXattr: true)).AsTask());
        using var changed = await Target.MutateInAsync(key, specs => specs.Upsert("_txn.id", "t2", isXattr: true),
            new MutateInOptions { AccessDeleted = true });
        Assert.True(changed.MutationToken is { SequenceNumber: > 0 }, $"the tombstone's token: {changed.MutationToken}");
        using var reread = await Target.LookupInAsync(key, specs => specs.Get("_txn.id", isXattr: true), new LookupInOptions { AccessDeleted = true });
        Assert.Equal(("t2", changed.Cas), (reread.ContentAs<string>(0), reread.Cas));
    }

    [Fact]
    public async Task ADurableMutateInSucceedsWithCasExpiryAndAToken()
    {
        var key = await StoredAsync("durable");
        var before = await ReadAsync(key);

        using var result = await Target.MutateInAsync(key, specs => specs.Upsert("n", 1), new MutateInOptions
        {
            Durability = DurabilityLevel.Majority, Cas = before.Cas, Expiry = TimeSpan.FromHours(2),
        });
        using var read = await Target.GetAsync(key, new GetOptions { WithExpiry = true });

        Assert.True(result.MutationToken is { SequenceNumber: > 0 });
        Assert.Equal(result.Cas, read.Cas);
        Assert.NotNull(read.ExpiryTime);
        await Assert.ThrowsAsync<CasMismatchException>(
            () => Target.MutateInAsync(key, specs => specs.Upsert("n", 2), new MutateInOptions { Cas = before.Cas }).AsTask());
    }

    [Fact]
    public async Task SpecsThatDisagreeWithTheDocumentFailWithTheirOwnTypes()
    {
        var key = await StoredAsync("mismatch");
        var text = NewKey("text");
        await Target.UpsertAsync(text, "not json");

        var counter = await Assert.ThrowsAsync<PathMismatchException>(
            () => Target.MutateInAsync(key, specs => specs.Upsert("ok", 1).Increment("name", 1)).AsTask());
        using var lookup = await Target.LookupInAsync(text, specs => specs.Get("a"));

        Assert.Equal(("name", 1), (counter.Path, counter.Index));
        Assert.Throws<DocumentNotJsonException>(() => lookup.ContentAs<string>(0));
        await Assert.ThrowsAsync<DocumentNotJsonException>(() => Target.MutateInAsync(text, specs => specs.Upsert("a", 1)).AsTask());
    }

    [Fact]
    public async Task AProjectionOfMoreThanSixteenPathsIsAssembledFromTheWholeBody()
    {
        var fields = Enumerable.Range(0, 18).Select(i => $"f{i}").ToArray();
        var key = await StoredAsync("wide", "{" + string.Join(",", fields.Select((f, i) => $"\"{f}\":{i}")) + ",\"other\":true}");

        using var projected = await Target.GetAsync(key, new GetOptions { Projection = fields[..17] });

        AssertJson("{" + string.Join(",", fields[..17].Select((f, i) => $"\"{f}\":{i}")) + "}", projected.ContentAs<JsonNode>());
    }
}

[Trait("Server", "ternd")]
public sealed class CouchbaseSubDocDefaultCollectionTests(CouchbaseFixture fixture)
    : CouchbaseSubDocScenarioTests(fixture), IClassFixture<CouchbaseFixture>
{
    protected override Collection Target => Fixture.Bucket.DefaultCollection();
}

[Trait("Server", "ternd")]
public sealed class CouchbaseSubDocNamedCollectionTests(CouchbaseFixture fixture)
    : CouchbaseSubDocScenarioTests(fixture), IClassFixture<CouchbaseFixture>
{
    protected override Collection Target => Fixture.Bucket.Scope("app").Collection("users");
}
