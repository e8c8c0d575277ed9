using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Transcoders;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Integration;

/// <summary>Every key-value operation against a real server; run once per server kind by the subclasses.</summary>
public abstract class KvOperationTests<TFixture>(TFixture fixture) where TFixture : ServerFixture
{
    protected Collection Collection { get; } = fixture.Collection;

    protected static string NewKey(string prefix = "doc") => $"{prefix}-{Guid.NewGuid():N}";

    [Fact]
    public async Task UpsertThenGetReturnsTheDocumentAndItsCas()
    {
        var key = NewKey();
        var stored = await Collection.UpsertAsync(key, new Person("Ada", 36));

        using var result = await Collection.GetAsync(key);

        Assert.NotEqual(0ul, stored.Cas);
        Assert.Equal(stored.Cas, result.Cas);
        Assert.Equal(new Person("Ada", 36), result.ContentAs<Person>());
        Assert.Equal(DocumentFlags.Json, result.Flags);
    }

    [Fact]
    public async Task GetOfAMissingKeyThrowsNamingTheKey()
    {
        var key = NewKey();
        var error = await Assert.ThrowsAsync<DocumentNotFoundException>(() => Collection.GetAsync(key).AsTask());
        Assert.Equal(key, error.Key);
        Assert.Contains(key, error.Message);
    }

    [Fact]
    public async Task TryGetOfAMissingKeyIsANormalResult()
    {
        using var result = await Collection.TryGetAsync(NewKey());
        Assert.False(result.Found);
    }

    [Fact]
    public async Task RawBytesAndStringsSkipSerialization()
    {
        var bytesKey = NewKey("bytes");
        var textKey = NewKey("text");
        await Collection.UpsertAsync(bytesKey, new byte[] { 0, 1, 2, 255 });
        await Collection.UpsertAsync(textKey, "plain ünïcode text");

        using var bytes = await Collection.GetAsync(bytesKey);
        using var text = await Collection.GetAsync(textKey);

        Assert.Equal(new byte[] { 0, 1, 2, 255 }, bytes.ContentAs<byte[]>());
        Assert.Equal(DocumentFlags.Binary, bytes.Flags);
        Assert.Equal("plain ünïcode text", text.ContentAs<string>());
        Assert.Equal("plain ünïcode text", text.ContentAsString());
        Assert.Equal(DocumentFlags.String, text.Flags);
    }

    [Fact]
    public async Task SourceGeneratedJsonRoundTrips()
    {
        var key = NewKey();
        await Collection.UpsertAsync(key, new Person("Grace", 45), TestJsonContext.Default.Person);
        var viaTranscoder = NewKey();
        await Collection.UpsertAsync(viaTranscoder, new Person("Linus", 28),
            new UpsertOptions { Transcoder = new JsonTranscoder(TestJsonContext.Default) });

        using var result = await Collection.GetAsync(key);
        using var other = await Collection.GetAsync(viaTranscoder, new GetOptions { Transcoder = new JsonTranscoder(TestJsonContext.Default) });

        Assert.Equal(new Person("Grace", 45), result.ContentAs(TestJsonContext.Default.Person));
        Assert.Equal(new Person("Linus", 28), other.ContentAs<Person>());
    }

    [Fact]
    public async Task InsertFailsWhenTheDocumentExists()
    {
        var key = NewKey();
        await Collection.InsertAsync(key, "first");
        var error = await Assert.ThrowsAsync<DocumentExistsException>(() => Collection.InsertAsync(key, "second").AsTask());
        Assert.Equal(key, error.Key);
        using var result = await Collection.GetAsync(key);
        Assert.Equal("first", result.ContentAsString());
    }

    [Fact]
    public async Task ReplaceNeedsAnExistingDocumentAndAMatchingCas()
    {
        var key = NewKey();
        await Assert.ThrowsAsync<DocumentNotFoundException>(() => Collection.ReplaceAsync(key, "x").AsTask());
        var first = await Collection.UpsertAsync(key, "v1");
        var second = await Collection.ReplaceAsync(key, "v2", new ReplaceOptions { Cas = first.Cas });

        var conflict = await Assert.ThrowsAsync<CasMismatchException>(
            () => Collection.ReplaceAsync(key, "v3", new ReplaceOptions { Cas = first.Cas }).AsTask());

        Assert.Equal(key, conflict.Key);
        Assert.NotEqual(first.Cas, second.Cas);
        using var result = await Collection.GetAsync(key);
        Assert.Equal("v2", result.ContentAsString());
    }

    [Fact]
    public async Task RemoveDeletesAndChecksCas()
    {
        var key = NewKey();
        var stored = await Collection.UpsertAsync(key, "v");
        await Assert.ThrowsAsync<CasMismatchException>(
            () => Collection.RemoveAsync(key, new RemoveOptions { Cas = stored.Cas + 1 }).AsTask());

        await Collection.RemoveAsync(key, new RemoveOptions { Cas = stored.Cas });

        Assert.False((await Collection.ExistsAsync(key)).Exists);
        await Assert.ThrowsAsync<DocumentNotFoundException>(() => Collection.RemoveAsync(key).AsTask());
    }

    [Fact]
    public async Task ExistsReportsPresenceAndCas()
    {
        var key = NewKey();
        Assert.Equal(new ExistsResult(false, 0), await Collection.ExistsAsync(key));
        var stored = await Collection.UpsertAsync(key, "v");
        Assert.Equal(new ExistsResult(true, stored.Cas), await Collection.ExistsAsync(key));
    }

    [Fact]
    public async Task ExpiryTouchAndGetAndTouchMakeDocumentsVanish()
    {
        var expiring = NewKey("expiring");
        var touched = NewKey("touched");
        var gotAndTouched = NewKey("gat");
        var lasting = NewKey("lasting");
        await Collection.UpsertAsync(expiring, "v", new UpsertOptions { Expiry = TimeSpan.FromSeconds(1) });
        await Collection.UpsertAsync(touched, "v");
        await Collection.UpsertAsync(gotAndTouched, "gat-value");
        await Collection.UpsertAsync(lasting, "v");

        await Collection.TouchAsync(touched, TimeSpan.FromSeconds(1));
        using (var gat = await Collection.GetAndTouchAsync(gotAndTouched, TimeSpan.FromSeconds(1)))
            Assert.Equal("gat-value", gat.ContentAsString());
        await Assert.ThrowsAsync<DocumentNotFoundException>(() => Collection.TouchAsync(NewKey(), TimeSpan.FromSeconds(1)).AsTask());

        // Servers count expiry in whole seconds, on their own clock: poll rather than sleep a fixed worst case.
        // The bound only turns a document that never expires into a failure; a busy machine must not reach it.
        var waited = System.Diagnostics.Stopwatch.StartNew();
        foreach (var key in new[] { expiring, touched, gotAndTouched })
        {
            while ((await Collection.ExistsAsync(key)).Exists)
            {
                Assert.True(waited.Elapsed < TimeSpan.FromSeconds(15), $"{key} did not expire within {waited.Elapsed}");
                await Task.Delay(100);
            }
        }
        Assert.True((await Collection.ExistsAsync(lasting)).Exists);
    }

    [Fact]
    public async Task CountersCreateIncrementAndDecrement()
    {
        var key = NewKey("counter");
        Assert.Equal(10ul, (await Collection.Binary.IncrementAsync(key, new CounterOptions { Initial = 10 })).Content);
        Assert.Equal(15ul, (await Collection.Binary.IncrementAsync(key, new CounterOptions { Delta = 5 })).Content);
        Assert.Equal(12ul, (await Collection.Binary.DecrementAsync(key, new CounterOptions { Delta = 3 })).Content);
        Assert.Equal(0ul, (await Collection.Binary.DecrementAsync(key, new CounterOptions { Delta = 100 })).Content);
        using var stored = await Collection.GetAsync(key);
        Assert.Equal("0", stored.ContentAsString().TrimEnd()); // memcached pads a shrunk counter with spaces
    }

    [Fact]
    public async Task CounterErrorsAreTyped()
    {
        var missing = NewKey("counter");
        await Assert.ThrowsAsync<DocumentNotFoundException>(
            () => Collection.Binary.IncrementAsync(missing, new CounterOptions { Initial = null }).AsTask());
        var text = NewKey("text");
        await Collection.UpsertAsync(text, "not a number");
        var error = await Assert.ThrowsAsync<DeltaInvalidException>(() => Collection.Binary.IncrementAsync(text).AsTask());
        Assert.Equal(text, error.Key);
    }

    [Fact]
    public async Task AppendAndPrependAdjoinBytes()
    {
        var key = NewKey();
        await Collection.UpsertAsync(key, "middle");
        await Collection.Binary.AppendAsync(key, Encoding.UTF8.GetBytes("-end"));
        await Collection.Binary.PrependAsync(key, Encoding.UTF8.GetBytes("start-"));
        using var result = await Collection.GetAsync(key);
        Assert.Equal("start-middle-end", result.ContentAsString());
        await Assert.ThrowsAsync<DocumentNotFoundException>(
            () => Collection.Binary.AppendAsync(NewKey(), Encoding.UTF8.GetBytes("x")).AsTask());
    }

    [Fact]
    public async Task KeysOf250BytesWork()
    {
        var key = new string('k', 218) + Guid.NewGuid().ToString("N"); // 218 + 32 = 250
        Assert.Equal(250, key.Length);
        await Collection.UpsertAsync(key, "long key");
        using var result = await Collection.GetAsync(key);
        Assert.Equal("long key", result.ContentAsString());
    }

    [Fact]
    public async Task KeysOf251BytesAreRejectedBeforeSending()
    {
        var key = new string('k', 251);
        var connections = fixture.Cluster.Nodes.SelectMany(n => n.Connections).ToArray();
        var requestsBefore = connections.Sum(c => c.Requests);

        var error = await Assert.ThrowsAsync<InvalidArgumentException>(async () => await Collection.UpsertAsync(key, "v"));
        await Assert.ThrowsAsync<InvalidArgumentException>(async () => await Collection.GetAsync(key));

        Assert.Equal(key, error.Key);
        Assert.Contains("250", error.Message);
        Assert.Equal(requestsBefore, connections.Sum(c => c.Requests));
    }

    [Fact]
    public async Task ManyConcurrentOperationsShareOneConnectionAndBatchWrites()
    {
        var keys = Enumerable.Range(0, 2000).Select(i => NewKey($"many{i}")).ToArray();
        await Task.WhenAll(keys.Select(k => Collection.UpsertAsync(k, k).AsTask()));
        var connection = fixture.Cluster.Nodes[0].Connections[0];
        var (sendsBefore, requestsBefore) = (connection.SendCalls, connection.Requests);

        var results = await Task.WhenAll(keys.Select(async k =>
        {
            using var result = await Collection.GetAsync(k);
            return (k, result.ContentAsString());
        }));

        Assert.All(results, r => Assert.Equal(r.k, r.Item2));
        var sends = connection.SendCalls - sendsBefore;
        var requests = connection.Requests - requestsBefore;
        Assert.True(sends < requests, $"{requests} requests took {sends} socket sends: writes were not batched");
    }
}

[Trait("Server", "memcached")]
public sealed class MemcachedKvTests(MemcachedFixture fixture)
    : KvOperationTests<MemcachedFixture>(fixture), IClassFixture<MemcachedFixture>
{
    [Fact]
    public async Task AValueOverMemcachedsItemLimitIsRejectedAndTheConnectionCarriesOn()
    {
        var key = NewKey("too-big");
        var error = await Assert.ThrowsAsync<ValueTooLargeException>(
            () => Collection.UpsertAsync(key, new byte[2 * 1024 * 1024]).AsTask());
        Assert.Equal(key, error.Key);
        await Collection.UpsertAsync(key, "small");
        using var result = await Collection.GetAsync(key);
        Assert.Equal("small", result.ContentAsString());
    }

    // memcached 1.6 answers an unknown opcode only when the next request arrives, so GET_LOCKED
    // there ends in a timeout rather than an error.
    [Fact(Skip = "plain memcached lacks GET_LOCKED and UNLOCK_KEY; covered by TerndKvTests.LocksBlockWritersUntilUnlocked")]
    public void LocksAreNotAvailable()
    {
    }
}

[Trait("Server", "ternd")]
public sealed class TerndKvTests(TerndFixture fixture)
    : KvOperationTests<TerndFixture>(fixture), IClassFixture<TerndFixture>
{
    [Fact]
    public async Task ValuesOfTwentyMegabytesCrossManySegmentsIntact()
    {
        // Just under ternd's 20 MiB item limit: the response spans hundreds of pipe segments and
        // shares the connection with small operations answered in between.
        var value = new byte[20 * 1024 * 1024 - 4096];
        new Random(42).NextBytes(value);
        var key = NewKey("large");
        var slow = new UpsertOptions { Timeout = TimeSpan.FromSeconds(30) };
        var small = Enumerable.Range(0, 50).Select(i => Collection.UpsertAsync($"{key}-{i}", i, slow).AsTask()).ToArray();
        await Collection.UpsertAsync(key, value, slow);
        await Task.WhenAll(small);

        var reads = Enumerable.Range(0, 3).Select(async _ =>
        {
            using var result = await Collection.GetAsync(key, new GetOptions { Timeout = TimeSpan.FromSeconds(30) });
            return result.ContentAsSpan().SequenceEqual(value);
        }).ToArray();
        using var between = await Collection.GetAsync($"{key}-7", new GetOptions { Timeout = TimeSpan.FromSeconds(30) });

        Assert.All(await Task.WhenAll(reads), Assert.True);
        Assert.Equal(7, between.ContentAs<int>());
    }

    [Fact]
    public async Task LocksBlockWritersUntilUnlocked()
    {
        var key = NewKey("locked");
        await Collection.UpsertAsync(key, "v1");

        using (var locked = await Collection.GetAndLockAsync(key, TimeSpan.FromSeconds(15)))
        {
            Assert.Equal("v1", locked.ContentAsString());
            var error = await Assert.ThrowsAsync<DocumentLockedException>(() => Collection.UpsertAsync(key, "v2").AsTask());
            Assert.Equal(key, error.Key);
            await Assert.ThrowsAsync<DocumentLockedException>(
                () => Collection.GetAndLockAsync(key, TimeSpan.FromSeconds(15)).AsTask());
            await Collection.UnlockAsync(key, locked.Cas);
        }
        await Collection.UpsertAsync(key, "v3");

        // Replacing with the lock's CAS both writes and unlocks.
        using var relocked = await Collection.GetAndLockAsync(key, TimeSpan.FromSeconds(15));
        await Collection.ReplaceAsync(key, "v4", new ReplaceOptions { Cas = relocked.Cas });
        await Collection.UpsertAsync(key, "v5");
        using var final = await Collection.GetAsync(key);
        Assert.Equal("v5", final.ContentAsString());
    }
}

