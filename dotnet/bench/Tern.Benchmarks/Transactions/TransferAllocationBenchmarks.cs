using BenchmarkDotNet.Attributes;
using Tern.Benchmarks.Sdk;
using Tern.Client;

namespace Tern.Benchmarks.Transactions;

/// <summary>
/// What a transfer transaction allocates in Tern.Client, end to end against a live ternd
/// (TERND_ADDRESS=host:port, started with server/config/dev.toml; scripts/bench-transactions-alloc.sh
/// does it): two gets and two replaces in one transaction (PENDING entry, two staged replaces,
/// COMMITTED, two unstagings, the entry removed: eight KV round trips besides the reads), against
/// the same two gets and two CAS replaces without a transaction as the baseline. Durability None,
/// so the figures are the client's and not the disk's. MemoryDiagnoser counts the whole process.
/// </summary>
[MemoryDiagnoser]
[InvocationCount(InvocationsPerIteration)]
public class TransferAllocationBenchmarks
{
    private const int InvocationsPerIteration = 64;
    private const int Accounts = 100;

    private static readonly Tern.Client.Transactions.TransactionOptions NoDurability = new() { DurabilityLevel = DurabilityLevel.None };

    private Cluster? _cluster;
    private Collection _collection = null!;
    private int _next;

    [GlobalSetup]
    public void Setup() => SetupAsync().GetAwaiter().GetResult();

    [GlobalCleanup]
    public void Cleanup() => _cluster?.DisposeAsync().AsTask().GetAwaiter().GetResult();

    [Benchmark(Baseline = true)]
    public async Task TwoGetsTwoReplacesWithoutATransaction()
    {
        var (from, to) = Pick();
        using var a = await _collection.GetAsync(TransferLoad.Key(from)).ConfigureAwait(false);
        using var b = await _collection.GetAsync(TransferLoad.Key(to)).ConfigureAwait(false);
        await _collection.ReplaceAsync(TransferLoad.Key(from), new Account(a.ContentAs<Account>()!.Balance - 1),
            new ReplaceOptions { Cas = a.Cas }).ConfigureAwait(false);
        await _collection.ReplaceAsync(TransferLoad.Key(to), new Account(b.ContentAs<Account>()!.Balance + 1),
            new ReplaceOptions { Cas = b.Cas }).ConfigureAwait(false);
    }

    [Benchmark]
    public async Task TransferTransaction()
    {
        var (from, to) = Pick();
        await _cluster!.Transactions.RunAsync(async ctx =>
        {
            var a = await ctx.GetAsync(_collection, TransferLoad.Key(from)).ConfigureAwait(false);
            var b = await ctx.GetAsync(_collection, TransferLoad.Key(to)).ConfigureAwait(false);
            await ctx.ReplaceAsync(a, new Account(a.ContentAs<Account>()!.Balance - 1)).ConfigureAwait(false);
            await ctx.ReplaceAsync(b, new Account(b.ContentAs<Account>()!.Balance + 1)).ConfigureAwait(false);
        }, NoDurability).ConfigureAwait(false);
    }

    private (int From, int To) Pick()
    {
        var from = _next++ % Accounts;
        return (from, (from + 1) % Accounts);
    }

    private async Task SetupAsync()
    {
        var address = Environment.GetEnvironmentVariable(NamedCollectionGetBenchmarks.AddressVariable);
        if (string.IsNullOrEmpty(address))
            throw new InvalidOperationException($"{NamedCollectionGetBenchmarks.AddressVariable}=host:port must name a ternd started with server/config/dev.toml");
        _cluster = await Cluster.ConnectAsync($"couchbase://{address}", new ClusterOptions { UserName = "Administrator", Password = "password" });
        _collection = _cluster.Bucket("default").DefaultCollection();
        for (var i = 0; i < Accounts; i++)
            await _collection.UpsertAsync(TransferLoad.Key(i), new Account(1000));
        await TransferTransaction(); // a wrong setup fails here, not as a fast error in the measurement
    }
}
