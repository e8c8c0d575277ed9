using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Integration;

/// <summary>
/// Collection.ScanAsync against one ternd (server/config/dev.toml, 1024 vbuckets): each test writes
/// documents under its own prefix, so that the tests of the class can share the server.
/// </summary>
[Trait("Server", "ternd")]
public sealed class CouchbaseRangeScanTests(CouchbaseFixture fixture) : IClassFixture<CouchbaseFixture>
{
    private Collection Default => fixture.Bucket.DefaultCollection();

    private Collection Orders => fixture.Bucket.Scope("app").Collection("orders");

    private static string NewPrefix(string name) => $"{name}-{Guid.NewGuid():N}-";

    /// <summary>Upserts <paramref name="count"/> documents {"i": n} keyed prefix + n (three digits), 64 at a time.</summary>
    private static async Task<Dictionary<string, MutationResult>> WriteAsync(Collection collection, string prefix, int count,
        UpsertOptions? options = null)
    {
        var written = new Dictionary<string, MutationResult>();
        foreach (var chunk in Enumerable.Range(0, count).Chunk(64))
        {
            var results = await Task.WhenAll(chunk.Select(async i =>
                (Key: $"{prefix}{i:D3}", Result: await collection.UpsertAsync($"{prefix}{i:D3}", new Item(i), options))));
            foreach (var (key, result) in results)
                written[key] = result;
        }
        return written;
    }

    public sealed record Item(int I);

    private static async Task<List<IScanResult>> ReadAllAsync(IAsyncEnumerable<IScanResult> scan)
    {
        var items = new List<IScanResult>();
        await foreach (var item in scan)
            items.Add(item);
        return items;
    }

    [Fact]
    public async Task APrefixScanReturnsEachDocumentOnceWithItsContentAndCas()
    {
        var prefix = NewPrefix("prefix");
        var written = await WriteAsync(Default, prefix, 300);
        await WriteAsync(Default, NewPrefix("other"), 20); // outside the prefix

        var items = await ReadAllAsync(Default.ScanAsync(new PrefixScan(prefix), new ScanOptions { ConcurrentVBucketScans = 4 }));

        Assert.Equal(written.Keys.Order(), items.Select(item => item.Id).Order());
        foreach (var item in items)
        {
            Assert.False(item.IdOnly);
            Assert.Equal(written[item.Id].Cas, item.Cas);
            Assert.Equal(int.Parse(item.Id[prefix.Length..]), item.ContentAs<Item>()!.I);
            Assert.Null(item.ExpiryTime);
        }
    }

    [Fact]
    public async Task RangeBoundsAreInclusiveOrExclusiveAsAsked()
    {
        var prefix = NewPrefix("range");
        await WriteAsync(Orders, prefix, 10);

        async Task<string[]> Scan(ScanTerm from, ScanTerm to) =>
            (await ReadAllAsync(Orders.ScanAsync(new RangeScan(from, to), new ScanOptions { IdsOnly = true })))
            .Select(item => item.Id[prefix.Length..]).Order().ToArray();

        Assert.Equal(["003", "004", "005", "006"], await Scan(ScanTerm.Inclusive(prefix + "003"), ScanTerm.Exclusive(prefix + "007")));
        Assert.Equal(["004", "005", "006", "007"], await Scan(ScanTerm.Exclusive(prefix + "003"), ScanTerm.Inclusive(prefix + "007")));
        Assert.Empty(await Scan(ScanTerm.Exclusive(prefix + "003"), ScanTerm.Exclusive(prefix + "004")));
    }

    [Fact]
    public async Task IdsOnlyReturnsKeysWithoutContent()
    {
        var prefix = NewPrefix("ids");
        var written = await WriteAsync(Orders, prefix, 40);

        var items = await ReadAllAsync(Orders.ScanAsync(new PrefixScan(prefix), new ScanOptions { IdsOnly = true, BatchItemLimit = 3 }));

        Assert.Equal(written.Keys.Order(), items.Select(item => item.Id).Order());
        Assert.All(items, item => Assert.True(item.IdOnly));
        Assert.Throws<InvalidOperationException>(() => items[0].ContentAs<Item>());
    }

    [Fact]
    public async Task ConcurrencyChangesNothingButSpeedAndEachVBucketComesInKeyOrder()
    {
        var prefix = NewPrefix("order");
        await WriteAsync(Default, prefix, 500);

        var one = await ReadAllAsync(Default.ScanAsync(new PrefixScan(prefix), new ScanOptions { BatchItemLimit = 2 }));
        var sixteen = await ReadAllAsync(Default.ScanAsync(new PrefixScan(prefix),
            new ScanOptions { ConcurrentVBucketScans = 16, BatchItemLimit = 2, BatchByteLimit = 100 }));

        Assert.Equal(500, one.Count);
        Assert.Equal(one.Select(item => item.Id).Order(), sixteen.Select(item => item.Id).Order());
        foreach (var items in new[] { one, sixteen })
        {
            // Vbuckets interleave, but within one the keys come in byte order.
            foreach (var vbucket in items.GroupBy(item => VBuckets.Of(item.Id)))
            {
                var keys = vbucket.Select(item => item.Id).ToArray();
                Assert.Equal(keys.Order(StringComparer.Ordinal), keys);
            }
        }
    }

    [Fact]
    public async Task ASeededSampleIsRepeatableAndKeepsToItsLimit()
    {
        await WriteAsync(Orders, NewPrefix("sample"), 200);

        var first = await ReadAllAsync(Orders.ScanAsync(new SamplingScan(25, seed: 42), new ScanOptions { IdsOnly = true }));
        var again = await ReadAllAsync(Orders.ScanAsync(new SamplingScan(25, seed: 42), new ScanOptions { IdsOnly = true }));

        Assert.Equal(25, first.Count);
        Assert.Equal(first.Select(item => item.Id), again.Select(item => item.Id));
        Assert.Equal(25, first.Select(item => item.Id).Distinct().Count());
    }

    [Fact]
    public async Task ConsistentWithSeesTheWritesItNamesWithTheirExpiry()
    {
        var prefix = NewPrefix("consistent");
        var written = await WriteAsync(Orders, prefix, 50, new UpsertOptions { Expiry = TimeSpan.FromDays(1) });
        var state = MutationState.From([.. written.Values]);

        var items = await ReadAllAsync(Orders.ScanAsync(new PrefixScan(prefix), new ScanOptions { ConsistentWith = state }));

        Assert.Equal(written.Keys.Order(), items.Select(item => item.Id).Order());
        Assert.All(items, item => Assert.InRange(item.ExpiryTime!.Value, DateTime.UtcNow.AddHours(23), DateTime.UtcNow.AddHours(25)));
    }

    [Fact]
    public async Task StoppingEarlyCancelsTheScansOnTheServer()
    {
        // Three keys in every vbucket, read one per continue: each of the 16 workers always holds a
        // scan still open, so a round that stopped without cancelling would leave up to 16 behind.
        var prefix = NewPrefix("early");
        var perVBucket = new int[VBuckets.Count];
        var keys = VBuckets.KeysWhere(prefix, vbucket => perVBucket[vbucket]++ < 3).Take(3 * VBuckets.Count).ToArray();
        foreach (var chunk in keys.Chunk(64))
            await Task.WhenAll(chunk.Select(key => Default.UpsertAsync(key, new Item(0)).AsTask()));
        // ternd keeps at most 128 scans per bucket open: without the cancels the later creates would
        // be refused (retried until the timeout).
        var options = new ScanOptions { Timeout = TimeSpan.FromSeconds(10), BatchItemLimit = 1, ConcurrentVBucketScans = 16 };
        for (var round = 0; round < 40; round++)
        {
            await foreach (var item in Default.ScanAsync(new PrefixScan(prefix), options))
            {
                Assert.StartsWith(prefix, item.Id);
                break;
            }
        }
    }

    [Fact]
    public async Task AnUnknownCollectionIsNamed()
    {
        var missing = fixture.Bucket.Scope("app").Collection("no-such-collection");
        var error = await Assert.ThrowsAsync<CollectionNotFoundException>(() => ReadAllAsync(missing.ScanAsync(new RangeScan())));
        Assert.Contains("app.no-such-collection", error.Message);
    }

    [Fact]
    public void BadOptionsNameTheLimit()
    {
        var error = Assert.Throws<InvalidArgumentException>(() =>
            Default.ScanAsync(new RangeScan(), new ScanOptions { ConcurrentVBucketScans = 0 }));
        Assert.Contains("from 1 to 128", error.Message);
    }
}
