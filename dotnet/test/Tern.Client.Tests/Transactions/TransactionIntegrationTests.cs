using System.Text.Json.Nodes;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;
using Tern.Client.Transactions;
using Tern.Client.Transcoders;

namespace Tern.Client.Tests.Transactions;

/// <summary>
/// Tern.Client transactions against one real ternd: what commits shows through plain KV reads,
/// what rolls back leaves no trace (no staged content, no ATR entry), a transaction reads its own
/// writes, and two transactions on the same document wait for each other instead of both winning.
/// </summary>
public class TransactionIntegrationTests(CouchbaseFixture fixture) : IClassFixture<CouchbaseFixture>
{
    private static readonly TransactionOptions Options = new() { Timeout = TimeSpan.FromSeconds(30) };

    private readonly string _run = Guid.NewGuid().ToString("N")[..8];

    private Collection Collection => fixture.Bucket.DefaultCollection();

    private Tern.Client.Transactions.Transactions Transactions => fixture.Cluster.Transactions;

    [Fact]
    public async Task AnInsertAReplaceAndARemoveCommitTogether()
    {
        var (changed, gone, added) = (Key("changed"), Key("gone"), Key("added"));
        await Collection.UpsertAsync(changed, new { v = 1 });
        await Collection.UpsertAsync(gone, new { v = 2 });

        var result = await Transactions.RunAsync(async ctx =>
        {
            var doc = await ctx.GetAsync(Collection, changed);
            Assert.Equal(1, doc.ContentAs<JsonObject>()!["v"]!.GetValue<int>());
            await ctx.ReplaceAsync(doc, new { v = 10 });
            await ctx.InsertAsync(Collection, added, new { v = 3 });
            // Read your own writes.
            Assert.Equal(3, (await ctx.GetAsync(Collection, added)).ContentAs<JsonObject>()!["v"]!.GetValue<int>());
            Assert.Equal(10, (await ctx.GetAsync(Collection, changed)).ContentAs<JsonObject>()!["v"]!.GetValue<int>());
            await ctx.RemoveAsync(await ctx.GetAsync(Collection, gone));
            Assert.Null(await ctx.GetOptionalAsync(Collection, gone));
        }, Options);

        Assert.True(result.UnstagingComplete);
        Assert.False(string.IsNullOrEmpty(result.TransactionId));
        Assert.Equal(10, await Collection.ValueOf(changed));
        Assert.Equal(3, await Collection.ValueOf(added));
        using var missing = await Collection.TryGetAsync(gone);
        Assert.False(missing.Found);
        await Collection.AssertNoLinks(changed);
        await Collection.AssertNoLinks(added);
    }

    [Fact]
    public async Task AnApplicationErrorRollsEverythingBack()
    {
        var (changed, added) = (Key("rb-changed"), Key("rb-added"));
        await Collection.UpsertAsync(changed, new { v = 1 });
        var thrown = new InvalidOperationException("the application changed its mind");

        var failure = await Assert.ThrowsAsync<TransactionFailedException>(() => Transactions.RunAsync(async ctx =>
        {
            await ctx.ReplaceAsync(await ctx.GetAsync(Collection, changed), new { v = 2 });
            await ctx.InsertAsync(Collection, added, new { v = 3 });
            throw thrown;
        }, Options));

        Assert.Same(thrown, failure.InnerException);
        Assert.Equal(1, await Collection.ValueOf(changed));
        using var missing = await Collection.TryGetAsync(added);
        Assert.False(missing.Found);
        await Collection.AssertNoLinks(changed);
    }

    [Fact]
    public async Task AMissingDocumentAndAnExistingOneAreErrorsTheLambdaMayCatch()
    {
        var (present, absent) = (Key("present"), Key("absent"));
        await Collection.UpsertAsync(present, new { v = 1 });

        await Transactions.RunAsync(async ctx =>
        {
            Assert.Null(await ctx.GetOptionalAsync(Collection, absent));
            await Assert.ThrowsAsync<DocumentNotFoundException>(() => ctx.GetAsync(Collection, absent));
            await Assert.ThrowsAsync<DocumentExistsException>(() => ctx.InsertAsync(Collection, present, new { v = 2 }));
            await ctx.InsertAsync(Collection, absent, new { v = 4 });
        }, Options);

        Assert.Equal(1, await Collection.ValueOf(present));
        Assert.Equal(4, await Collection.ValueOf(absent));
    }

    [Fact]
    public async Task BinaryDocumentsKeepTheirBytesAndFlags()
    {
        var (added, changed) = (Key("bin-added"), Key("bin-changed"));
        var bytes = Enumerable.Range(0, 300).Select(i => (byte)(i * 7 % 256)).ToArray();
        await Collection.UpsertAsync(changed, "before"u8.ToArray());

        await Transactions.RunAsync(async ctx =>
        {
            await ctx.InsertAsync(Collection, added, bytes);
            var doc = await ctx.GetAsync(Collection, changed);
            Assert.Equal("before"u8.ToArray(), doc.ContentAs<byte[]>());
            await ctx.ReplaceAsync(doc, new byte[] { 0xff, 0x00, 0xfe });
            Assert.Equal(bytes, (await ctx.GetAsync(Collection, added)).ContentAs<byte[]>());
        }, Options);

        using var inserted = await Collection.GetAsync(added);
        Assert.Equal(bytes, inserted.ContentAs<byte[]>());
        Assert.Equal(DocumentFlags.Binary, inserted.Flags & 0xff000000);
        using var replaced = await Collection.GetAsync(changed);
        Assert.Equal(new byte[] { 0xff, 0x00, 0xfe }, replaced.ContentAs<byte[]>());
    }

    [Fact]
    public async Task AWriterWaitsForTheTransactionThatHoldsTheDocument()
    {
        var account = Key("contended");
        await Collection.UpsertAsync(account, new { v = 0 });
        var staged = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var holder = Transactions.RunAsync(async ctx =>
        {
            var doc = await ctx.GetAsync(Collection, account);
            await ctx.ReplaceAsync(doc, new { v = doc.ContentAs<JsonObject>()!["v"]!.GetValue<int>() + 1 });
            staged.TrySetResult();
            await release.Task;
        }, Options);
        await staged.Task.WaitAsync(TimeSpan.FromSeconds(30));

        var attempts = 0;
        var writer = Transactions.RunAsync(async ctx =>
        {
            Interlocked.Increment(ref attempts);
            var doc = await ctx.GetAsync(Collection, account);
            // Another transaction's staged change does not show before it commits.
            await ctx.ReplaceAsync(doc, new { v = doc.ContentAs<JsonObject>()!["v"]!.GetValue<int>() + 10 });
        }, Options);
        // The writer meets the staged change and retries; it cannot finish while the holder waits.
        await Poll.Until(() => Volatile.Read(ref attempts) >= 2, "the writer never retried");
        Assert.False(writer.IsCompleted);

        release.SetResult();
        await holder;
        await writer;
        Assert.Equal(11, await Collection.ValueOf(account));
    }

    [Fact]
    public async Task TheAtrGoesToTheMetadataCollection()
    {
        var key = Key("meta");
        await Collection.UpsertAsync(key, new { v = 1 });
        JsonObject? atr = null;

        await Transactions.RunAsync(async ctx =>
        {
            await ctx.ReplaceAsync(await ctx.GetAsync(Collection, key), new { v = 2 });
            using var links = await Collection.LookupInAsync(key, specs => specs.Get("txn.atr", isXattr: true));
            atr = links.ContentAs<JsonObject>(0);
        }, Options with { MetadataCollection = new TransactionKeyspace(CouchbaseFixture.BucketName, "app", "orders") });

        Assert.Equal("""{"id":"%s","bkt":"default","scp":"app","coll":"orders"}""".Replace("%s", AtrIds.ForKey(key)), atr!.ToJsonString());
        Assert.Equal(2, await Collection.ValueOf(key));
    }

    private string Key(string name) => $"txn-{name}-{_run}";

}
