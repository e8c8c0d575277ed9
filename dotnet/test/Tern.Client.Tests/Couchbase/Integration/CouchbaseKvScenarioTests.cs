using System.Diagnostics;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;
using Tern.Client.Transcoders;
using TimeoutException = Tern.Client.Exceptions.TimeoutException;

namespace Tern.Client.Tests.Couchbase.Integration;

public sealed record Address(string City, string Zip);

public sealed record Profile(string Name, int Age, Address Home, IReadOnlyList<string> Languages);

/// <summary>
/// The KV scenario the official Node SDK passes against ternd (compat/test/kv.test.mjs), through
/// Tern.Client over couchbase:// against one ternd started from server/config/dev.toml; run on the
/// default collection and on app.users by the subclasses, each with its own server.
/// </summary>
public abstract class CouchbaseKvScenarioTests(CouchbaseFixture fixture)
{
    // A document given a 1 s expiry is gone within about 2 s; the bound only turns one that never expires into a failure.
    private static readonly TimeSpan ExpiryPatience = TimeSpan.FromSeconds(15);

    protected CouchbaseFixture Fixture { get; } = fixture;

    protected abstract Collection Target { get; }

    private static string NewKey(string prefix) => $"{prefix}-{Guid.NewGuid():N}";

    [Fact]
    public async Task UpsertThenGetRoundTripsAJsonObjectWithItsCas()
    {
        var key = NewKey("upsert");
        var profile = new Profile("Ada", 36, new Address("London", "NW1"), ["en", "fr"]);

        var stored = await Target.UpsertAsync(key, profile);
        using (var read = await Target.GetAsync(key))
        {
            Assert.NotEqual(0ul, stored.Cas);
            Assert.Equal(stored.Cas, read.Cas);
            Assert.Equal(DocumentFlags.Json, read.Flags);
            Assert.Equivalent(profile, read.ContentAs<Profile>(), strict: true);
        }

        // A second upsert replaces the content and changes the CAS.
        var again = await Target.UpsertAsync(key, profile with { Name = "Grace", Languages = ["en"] });
        using var reread = await Target.GetAsync(key);
        Assert.NotEqual(stored.Cas, again.Cas);
        Assert.Equal(again.Cas, reread.Cas);
        Assert.Equivalent(profile with { Name = "Grace", Languages = ["en"] }, reread.ContentAs<Profile>(), strict: true);
    }

    [Fact]
    public async Task ReplicaReadsReadTheActiveCopyOfABucketWithoutReplicas()
    {
        var key = NewKey("replica");
        var stored = await Target.UpsertAsync(key, new Address("Paris", "75001"));

        using (var any = await Target.GetAnyReplicaAsync(key))
        {
            Assert.True(any.IsActive);
            Assert.Equal(stored.Cas, any.Cas);
            Assert.Equal(new Address("Paris", "75001"), any.ContentAs<Address>());
        }
        var all = new List<GetResult>();
        await foreach (var copy in Target.GetAllReplicasAsync(key))
            all.Add(copy);
        Assert.True(Assert.Single(all).IsActive);
        using (var lookup = await Target.LookupInAnyReplicaAsync(key, specs => specs.Get("City")))
        {
            Assert.True(lookup.IsActive);
            Assert.Equal("Paris", lookup.ContentAs<string>(0));
        }
        var lookups = new List<LookupInResult>();
        await foreach (var copy in Target.LookupInAllReplicasAsync(key, specs => specs.Get("Zip")))
            lookups.Add(copy);
        Assert.Equal("75001", Assert.Single(lookups).ContentAs<string>(0));

        var missing = NewKey("replica-missing");
        var error = await Assert.ThrowsAsync<DocumentUnretrievableException>(() => Target.GetAnyReplicaAsync(missing));
        Assert.Equal(missing, error.Key);
        Assert.IsType<DocumentNotFoundException>(Assert.Single(((AggregateException)error.InnerException!).InnerExceptions));
    }

    [Fact]
    public async Task InsertOfAnExistingKeyThrowsDocumentExists()
    {
        var key = NewKey("insert");
        await Target.InsertAsync(key, new Address("first", "1"));

        var error = await Assert.ThrowsAsync<DocumentExistsException>(() => Target.InsertAsync(key, new Address("second", "2")).AsTask());

        Assert.Equal(key, error.Key);
        using var read = await Target.GetAsync(key);
        Assert.Equal(new Address("first", "1"), read.ContentAs<Address>());
    }

    [Fact]
    public async Task ReplaceWithAStaleCasThrowsCasMismatchAndWithTheCurrentOneReplaces()
    {
        var key = NewKey("replace");
        var first = await Target.UpsertAsync(key, new Address("v1", "1"));
        var second = await Target.UpsertAsync(key, new Address("v2", "2"));

        var conflict = await Assert.ThrowsAsync<CasMismatchException>(
            () => Target.ReplaceAsync(key, new Address("v3", "3"), new ReplaceOptions { Cas = first.Cas }).AsTask());
        Assert.Equal(key, conflict.Key);
        using (var unchanged = await Target.GetAsync(key))
            Assert.Equal(new Address("v2", "2"), unchanged.ContentAs<Address>());

        var third = await Target.ReplaceAsync(key, new Address("v4", "4"), new ReplaceOptions { Cas = second.Cas });
        Assert.NotEqual(second.Cas, third.Cas);
        using (var replaced = await Target.GetAsync(key))
            Assert.Equal(new Address("v4", "4"), replaced.ContentAs<Address>());
        await Assert.ThrowsAsync<DocumentNotFoundException>(() => Target.ReplaceAsync(NewKey("replace-missing"), "x").AsTask());
    }

    [Fact]
    public async Task RemoveThenGetThrowsDocumentNotFound()
    {
        var key = NewKey("remove");
        var written = await Target.UpsertAsync(key, new Address("gone", "0"));

        var removed = await Target.RemoveAsync(key);

        // Like Couchbase Server, ternd answers a Couchbase client's DELETE with the tombstone's CAS.
        Assert.NotEqual(0ul, removed.Cas);
        Assert.NotEqual(written.Cas, removed.Cas);
        Assert.True(removed.MutationToken is { SequenceNumber: > 0 }, $"remove's token: {removed.MutationToken}");
        var error = await Assert.ThrowsAsync<DocumentNotFoundException>(() => Target.GetAsync(key).AsTask());
        Assert.Equal(key, error.Key);
        Assert.Contains(key, error.Message);
        await Assert.ThrowsAsync<DocumentNotFoundException>(() => Target.RemoveAsync(key).AsTask());
        using var tried = await Target.TryGetAsync(key);
        Assert.False(tried.Found);
    }

    [Fact]
    public async Task BinaryValuesRoundTrip()
    {
        // Compressible (Snappy goes both ways when negotiated), incompressible, and tiny.
        var patterned = Enumerable.Range(0, 4096).Select(i => (byte)(i * 7 + 3)).ToArray();
        var random = new byte[4096];
        new Random(42).NextBytes(random);
        byte[] tiny = [0, 1, 2, 0xff, 0xfe];

        foreach (var (name, bytes) in new[] { ("patterned", patterned), ("random", random), ("tiny", tiny) })
        {
            var key = NewKey($"binary-{name}");
            await Target.UpsertAsync(key, bytes);
            using var read = await Target.GetAsync(key);
            Assert.Equal(DocumentFlags.Binary, read.Flags);
            Assert.Equal(bytes, read.ContentAs<byte[]>());
            Assert.Equal(bytes, read.ContentAsBytes());
        }
    }

    [Fact]
    public async Task ADocumentWithAOneSecondExpiryGoesAwayAndAnHourLongOneStays()
    {
        var shortLived = NewKey("expiry-short");
        var longLived = NewKey("expiry-long");
        await Target.UpsertAsync(shortLived, "short", new UpsertOptions { Expiry = TimeSpan.FromSeconds(1) });
        await Target.UpsertAsync(longLived, "long", new UpsertOptions { Expiry = TimeSpan.FromHours(1) });

        await GoneAsync(shortLived);

        using var read = await Target.GetAsync(longLived);
        Assert.Equal("long", read.ContentAsString());
    }

    [Fact]
    public async Task TouchSetsANewExpiryAndFailsOnAMissingKey()
    {
        var key = NewKey("touch");
        var stored = await Target.UpsertAsync(key, "v");

        var touched = await Target.TouchAsync(key, TimeSpan.FromSeconds(1));

        Assert.NotEqual(0ul, touched.Cas);
        Assert.NotEqual(stored.Cas, touched.Cas);
        await GoneAsync(key);
        var missing = NewKey("touch-missing");
        var error = await Assert.ThrowsAsync<DocumentNotFoundException>(() => Target.TouchAsync(missing, TimeSpan.FromSeconds(10)).AsTask());
        Assert.Equal(missing, error.Key);
    }

    [Fact]
    public async Task GetAndTouchReturnsTheContentAndSetsTheExpiry()
    {
        var key = NewKey("gat");
        await Target.UpsertAsync(key, new Address("gat", "9"));

        using (var read = await Target.GetAndTouchAsync(key, TimeSpan.FromSeconds(1)))
        {
            Assert.Equal(new Address("gat", "9"), read.ContentAs<Address>());
            Assert.NotEqual(0ul, read.Cas);
        }

        await GoneAsync(key);
        await Assert.ThrowsAsync<DocumentNotFoundException>(
            () => Target.GetAndTouchAsync(NewKey("gat-missing"), TimeSpan.FromSeconds(10)).AsTask());
    }

    [Fact]
    public async Task AMutationIsRefusedWhileLockedAndSucceedsAfterUnlock()
    {
        var key = NewKey("lock");
        var stored = await Target.UpsertAsync(key, "before");

        // Locked for the longest time ternd allows (30 s), far past the upsert's timeout below.
        using var locked = await Target.GetAndLockAsync(key, TimeSpan.FromSeconds(30));
        Assert.Equal("before", locked.ContentAsString());
        Assert.NotEqual(stored.Cas, locked.Cas); // a lock hands out a new CAS

        // ternd answers Locked; the SDK retries that until the operation's timeout, then gives up. The timeout
        // must leave room for at least one answer even on a busy machine: a timeout before the first Locked
        // answer would not say "locked".
        var watch = Stopwatch.StartNew();
        var refused = await Record.ExceptionAsync(
            () => Target.UpsertAsync(key, "while locked", new UpsertOptions { Timeout = TimeSpan.FromSeconds(5) }).AsTask());
        Assert.True(refused is DocumentLockedException || (refused is TimeoutException && refused.Message.Contains("locked")),
            $"upsert of a locked key after {watch.ElapsedMilliseconds} ms: {refused}");

        await Target.UnlockAsync(key, locked.Cas);
        var after = await Target.UpsertAsync(key, "after");
        Assert.NotEqual(0ul, after.Cas);
        using var read = await Target.GetAsync(key);
        Assert.Equal("after", read.ContentAsString());
    }

    [Fact]
    public async Task ExistsIsTrueForADocumentAndFalseForAMissingOrRemovedOne()
    {
        var key = NewKey("exists");
        var stored = await Target.UpsertAsync(key, "v");

        Assert.Equal(new ExistsResult(true, stored.Cas), await Target.ExistsAsync(key));
        Assert.False((await Target.ExistsAsync(NewKey("exists-missing"))).Exists);
        await Target.RemoveAsync(key);
        Assert.False((await Target.ExistsAsync(key)).Exists);
    }

    [Fact]
    public async Task CountersStartFromTheInitialValueIncrementAndDecrement()
    {
        var key = NewKey("counter");

        Assert.Equal(10ul, (await Target.Binary.IncrementAsync(key, new CounterOptions { Delta = 5, Initial = 10 })).Content);
        Assert.Equal(15ul, (await Target.Binary.IncrementAsync(key, new CounterOptions { Delta = 5 })).Content);
        Assert.Equal(12ul, (await Target.Binary.DecrementAsync(key, new CounterOptions { Delta = 3 })).Content);
        Assert.Equal(0ul, (await Target.Binary.DecrementAsync(key, new CounterOptions { Delta = 100 })).Content); // stops at zero

        using (var read = await Target.GetAsync(key))
            Assert.Equal("0", read.ContentAsString().Trim());
        await Assert.ThrowsAsync<DocumentNotFoundException>(
            () => Target.Binary.IncrementAsync(NewKey("counter-missing"), new CounterOptions { Initial = null }).AsTask());
    }

    [Fact]
    public async Task AppendAndPrependAdjoinBytes()
    {
        var key = NewKey("adjoin");
        await Target.UpsertAsync(key, "mid");

        await Target.Binary.AppendAsync(key, Encoding.UTF8.GetBytes("-end"));
        await Target.Binary.PrependAsync(key, Encoding.UTF8.GetBytes("start-"));

        using var read = await Target.GetAsync(key);
        Assert.Equal("start-mid-end", read.ContentAsString());
        await Assert.ThrowsAsync<DocumentNotFoundException>(
            () => Target.Binary.AppendAsync(NewKey("adjoin-missing"), Encoding.UTF8.GetBytes("x")).AsTask());
    }

    [Fact]
    public async Task AMajorityDurableUpsertSucceedsWithAMutationToken()
    {
        var key = NewKey("durable");

        var stored = await Target.UpsertAsync(key, "durable", new UpsertOptions { Durability = DurabilityLevel.Majority });

        Assert.NotEqual(0ul, stored.Cas);
        var token = Assert.NotNull(stored.MutationToken);
        Assert.Equal(CouchbaseFixture.BucketName, token.BucketName);
        Assert.Equal(VBuckets.Of(key), token.VBucketId); // the client's hash agrees with an independent one
        Assert.NotEqual(0ul, token.VBucketUuid);
        Assert.True(token.SequenceNumber > 0, $"sequence number {token.SequenceNumber}");
        using (var read = await Target.GetAsync(key))
            Assert.Equal("durable", read.ContentAsString());

        // The next mutation of the same vbucket gets a higher sequence number, under the same vbucket UUID.
        var next = await Target.UpsertAsync(key, "again");
        var nextToken = Assert.NotNull(next.MutationToken);
        Assert.Equal(token.VBucketUuid, nextToken.VBucketUuid);
        Assert.True(nextToken.SequenceNumber > token.SequenceNumber, $"{nextToken.SequenceNumber} after {token.SequenceNumber}");

        var removed = await Target.RemoveAsync(key, new RemoveOptions { Durability = DurabilityLevel.Majority });
        var removedToken = Assert.NotNull(removed.MutationToken);
        Assert.True(removedToken.SequenceNumber > nextToken.SequenceNumber, $"{removedToken.SequenceNumber} after {nextToken.SequenceNumber}");
        Assert.False((await Target.ExistsAsync(key)).Exists);
    }

    [Theory]
    [InlineData(DurabilityLevel.PersistToMajority)]
    [InlineData(DurabilityLevel.MajorityAndPersistToActive)]
    public async Task PersistingDurabilitySucceedsOnACouchbaseBucket(DurabilityLevel level)
    {
        // dev.toml's bucket is persistent: with no replicas, the write completes once it is on disk.
        // That it waits for the disk, and Majority does not, is CouchbaseDurabilityWaitTests'.
        var key = NewKey("persisted");

        var result = await Target.UpsertAsync(key, "v", new UpsertOptions { Durability = level });

        Assert.NotNull(result.MutationToken);
        using var read = await Target.GetAsync(key);
        Assert.Equal(result.Cas, read.Cas);
        Assert.Equal("v", read.ContentAs<string>());
    }

    [Fact]
    public async Task FiveHundredConcurrentUpsertsThenGetsAllSucceed()
    {
        var keys = Enumerable.Range(0, 500).Select(i => NewKey($"many-{i}")).ToArray();

        var upserts = await Task.WhenAll(keys.Select(async (key, i) =>
            await Record.ExceptionAsync(() => Target.UpsertAsync(key, new Address(key, i.ToString())).AsTask())));
        var failedUpserts = upserts.Where(e => e is not null).ToList();
        Assert.True(failedUpserts.Count == 0, $"{failedUpserts.Count} upserts failed, first: {failedUpserts.FirstOrDefault()}");

        var gets = await Task.WhenAll(keys.Select(async (key, i) =>
        {
            try
            {
                using var read = await Target.GetAsync(key);
                return read.ContentAs<Address>() == new Address(key, i.ToString()) ? null : $"{key}: {read.ContentAsString()}";
            }
            catch (TernException e)
            {
                return $"{key}: {e.Message}";
            }
        }));
        var failedGets = gets.Where(g => g is not null).ToList();
        Assert.True(failedGets.Count == 0, $"{failedGets.Count} gets failed, first: {failedGets.FirstOrDefault()}");
    }

    /// <summary>Polls until <paramref name="key"/> is gone: servers expire in whole seconds on their own clock.</summary>
    private async Task GoneAsync(string key)
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            using var read = await Target.TryGetAsync(key);
            if (!read.Found)
                return;
            Assert.True(waited.Elapsed < ExpiryPatience, $"{key} did not expire within {waited.Elapsed}");
            await Task.Delay(100);
        }
    }
}

[Trait("Server", "ternd")]
public sealed class CouchbaseDefaultCollectionTests(CouchbaseFixture fixture)
    : CouchbaseKvScenarioTests(fixture), IClassFixture<CouchbaseFixture>
{
    protected override Collection Target => Fixture.Bucket.DefaultCollection();

    [Fact]
    public void TheDefaultCollectionIsNamedAsCouchbaseNamesIt()
    {
        Assert.Equal(("_default", "_default", "default"), (Target.ScopeName, Target.Name, Target.BucketName));
        Assert.Same(Target, Fixture.Bucket.DefaultScope().Collection("_default"));
    }
}

[Trait("Server", "ternd")]
public sealed class CouchbaseNamedCollectionTests(CouchbaseFixture fixture)
    : CouchbaseKvScenarioTests(fixture), IClassFixture<CouchbaseFixture>
{
    protected override Collection Target => Fixture.Bucket.Scope("app").Collection("users");

    [Fact]
    public async Task CollectionsAreSeparateKeySpaces()
    {
        var key = $"shared-{Guid.NewGuid():N}";
        var orders = Fixture.Bucket.Scope("app").Collection("orders");
        await Target.UpsertAsync(key, "in users");

        Assert.False((await Fixture.Bucket.DefaultCollection().ExistsAsync(key)).Exists);
        Assert.False((await orders.ExistsAsync(key)).Exists);
        await orders.UpsertAsync(key, "in orders");
        using var users = await Target.GetAsync(key);
        using var inOrders = await orders.GetAsync(key);
        Assert.Equal(("in users", "in orders"), (users.ContentAsString(), inOrders.ContentAsString()));
    }
}

/// <summary>The same scenario over couchbases://: every connection TLS, on ternd's TLS port.</summary>
public sealed class CouchbaseTlsNamedCollectionTests(CouchbaseTlsFixture fixture)
    : CouchbaseKvScenarioTests(fixture), IClassFixture<CouchbaseTlsFixture>
{
    protected override Collection Target => Fixture.Bucket.Scope("app").Collection("users");

    [Fact]
    public async Task EveryConnectionIsTlsToTheTlsPort()
    {
        await Target.UpsertAsync($"tls-{Guid.NewGuid():N}", new Address("over", "tls"));

        var connections = Fixture.Cluster.Nodes.SelectMany(pool => pool.Connections).ToArray();
        Assert.NotEmpty(connections);
        Assert.All(connections, c => Assert.True(c.IsTls, $"{c.Name} is plain TCP"));
        Assert.All(connections, c => Assert.EndsWith($":{Fixture.Server.TlsPort}", c.Endpoint));
    }
}
