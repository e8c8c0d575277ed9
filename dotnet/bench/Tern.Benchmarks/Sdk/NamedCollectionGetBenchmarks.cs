using BenchmarkDotNet.Attributes;
using Tern.Client;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// What a Get costs in allocations, end to end against a live ternd (TERND_ADDRESS=host:port,
/// started with server/config/dev.toml; scripts/bench-sdk-alloc.sh does it): a 256-byte JSON
/// document from collection app.users over couchbase:// (logged in, collection id in the key,
/// routed by the cluster map's vbuckets), against the same Get from the default collection over
/// memcached:// (the dev config's anonymous bucket, no collections, no vbuckets) as the baseline.
/// The bound: the couchbase:// Get allocates at most 100 B beyond the value.
/// Each invocation awaits <see cref="GetsPerInvoke"/> Gets one after the other, so the
/// benchmark's own Task (about 100-200 B per invocation, once the first Get waits) adds at most
/// 2 B per Get. MemoryDiagnoser counts the whole process (GC.GetTotalAllocatedBytes), the
/// SDK's read loop and thread-pool work included. The invocation count is fixed: left to
/// itself, BenchmarkDotNet may see a slow first (jitting) invocation, settle on one invocation
/// per iteration, and then report the ~8 KB those 100 Gets allocate as 0 (it takes anything up to
/// one allocation quantum for noise).
/// </summary>
[MemoryDiagnoser]
[InvocationCount(InvocationsPerIteration)]
public class NamedCollectionGetBenchmarks
{
    public const string AddressVariable = "TERND_ADDRESS";

    private const int GetsPerInvoke = 100;
    private const int InvocationsPerIteration = 32;
    private const int ValueSize = 256;
    private const string Key = "alloc::user::00000001";

    private Cluster? _couchbase;
    private Cluster? _memcached;
    private Collection _users = null!;
    private Collection _classic = null!;

    // Synchronous: BenchmarkDotNet's in-process toolchain does not await an async GlobalSetup.
    [GlobalSetup]
    public void Setup() => SetupAsync().GetAwaiter().GetResult();

    [GlobalCleanup]
    public void Cleanup() => CleanupAsync().GetAwaiter().GetResult();

    private async Task SetupAsync()
    {
        var address = Environment.GetEnvironmentVariable(AddressVariable);
        if (string.IsNullOrEmpty(address))
            throw new InvalidOperationException($"{AddressVariable}=host:port must name a ternd started with server/config/dev.toml");
        var value = BenchDocument.Create(ValueSize);

        _couchbase = await Cluster.ConnectAsync($"couchbase://{address}",
            new ClusterOptions { UserName = "Administrator", Password = "password" });
        _users = _couchbase.Bucket("default").Scope("app").Collection("users");
        await _users.UpsertAsync(Key, value, MixedLoad.Upsert);

        _memcached = await Cluster.ConnectAsync($"memcached://{address}");
        _classic = _memcached.Bucket("default").DefaultCollection();
        await _classic.UpsertAsync(Key, value, MixedLoad.Upsert);

        // Both read back what was stored, so a wrong setup fails here and not as a fast "miss".
        await CheckAsync(_users);
        await CheckAsync(_classic);
    }

    private async Task CleanupAsync()
    {
        if (_couchbase is not null)
            await _couchbase.DisposeAsync();
        if (_memcached is not null)
            await _memcached.DisposeAsync();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = GetsPerInvoke)]
    public Task MemcachedDefaultCollectionGet() => GetAsync(_classic);

    [Benchmark(OperationsPerInvoke = GetsPerInvoke)]
    public Task CouchbaseNamedCollectionGet() => GetAsync(_users);

    private static async Task GetAsync(Collection collection)
    {
        for (var i = 0; i < GetsPerInvoke; i++)
        {
            using var result = await collection.GetAsync(Key).ConfigureAwait(false);
        }
    }

    private static async Task CheckAsync(Collection collection)
    {
        using var result = await collection.GetAsync(Key);
        if (result.ContentLength != ValueSize)
            throw new InvalidOperationException($"{collection.Name}: read {result.ContentLength} bytes, stored {ValueSize}");
    }
}
