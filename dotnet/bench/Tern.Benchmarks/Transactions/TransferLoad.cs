using System.Diagnostics;
using System.Globalization;
using System.Text.Json.Serialization;
using Tern.Benchmarks.Sdk;
using Tern.Client;

namespace Tern.Benchmarks.Transactions;

/// <summary>
/// `Tern.Benchmarks transactions --port P [--seconds 10] [--in-flight 16] [--accounts 1000]`:
/// Tern.Client's side of `make bench-transactions`, the same load as compat/bench/transactions.mjs
/// runs with the official Node.js SDK on the same ternd (user bench): each transaction reads two of
/// the accounts `account-&lt;i&gt;` and replaces both (a transfer of 1). SECONDS with one transaction at
/// a time, then SECONDS with IN_FLIGHT at once; prints the same table (transactions/s, p50 and p99
/// in ms) and checks at the end that the balances still add up.
/// </summary>
internal static class TransferLoad
{
    private const int Start = 1000;

    public static async Task<int> RunAsync(string[] args)
    {
        var options = Options(args);
        var port = options.TryGetValue("port", out var p) ? p : throw new ArgumentException("--port PORT is required");
        var seconds = int.Parse(options.GetValueOrDefault("seconds", "10"), CultureInfo.InvariantCulture);
        var inFlight = int.Parse(options.GetValueOrDefault("in-flight", "16"), CultureInfo.InvariantCulture);
        var accounts = int.Parse(options.GetValueOrDefault("accounts", "1000"), CultureInfo.InvariantCulture);

        await using var cluster = await Cluster.ConnectAsync($"couchbase://127.0.0.1:{port}", new ClusterOptions
        {
            UserName = "bench", Password = "password", KvTimeout = TimeSpan.FromSeconds(10), ConnectTimeout = TimeSpan.FromSeconds(20),
        });
        var collection = cluster.Bucket("default").DefaultCollection();
        for (var i = 0; i < accounts; i += 100)
            await Task.WhenAll(Enumerable.Range(i, Math.Min(100, accounts - i))
                .Select(a => collection.UpsertAsync(Key(a), new Account(Start), AccountJson.Default.Account).AsTask()));

        Console.WriteLine("| in flight | transactions | transactions/s | p50 ms | p99 ms |");
        Console.WriteLine("|---:|---:|---:|---:|---:|");
        await PhaseAsync(cluster, collection, accounts, 1, seconds);
        await PhaseAsync(cluster, collection, accounts, inFlight, seconds);

        long total = 0;
        for (var i = 0; i < accounts; i++)
        {
            using var read = await collection.GetAsync(Key(i));
            total += read.ContentAs(AccountJson.Default.Account)!.Balance;
        }
        if (total != (long)accounts * Start)
            throw new InvalidOperationException($"the balances add up to {total}, not {accounts * Start}");
        Console.WriteLine($"balances: {accounts} accounts still hold {total} in all");
        return 0;
    }

    private static async Task PhaseAsync(Cluster cluster, Collection collection, int accounts, int inFlight, int seconds)
    {
        var latencies = new LatencyRecorder(inFlight);
        var end = Stopwatch.GetTimestamp() + seconds * Stopwatch.Frequency;
        var started = Stopwatch.GetTimestamp();
        await Task.WhenAll(Enumerable.Range(0, inFlight).Select(caller => Task.Run(async () =>
        {
            var random = new Random(caller);
            while (Stopwatch.GetTimestamp() < end)
            {
                var t0 = Stopwatch.GetTimestamp();
                await TransferAsync(cluster, collection, random, accounts);
                latencies.Record(caller, Stopwatch.GetTimestamp() - t0);
            }
        })));
        var elapsed = Stopwatch.GetElapsedTime(started).TotalSeconds;
        var percentiles = latencies.PercentilesMicros(50, 99);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"| {inFlight} | {latencies.Count} | {latencies.Count / elapsed:F0} | {percentiles[0] / 1000:F2} | {percentiles[1] / 1000:F2} |"));
    }

    /// <summary>One transfer of 1 between two accounts picked at random: two gets, two replaces, one transaction.</summary>
    public static Task<Tern.Client.Transactions.TransactionResult> TransferAsync(Cluster cluster, Collection collection, Random random,
        int accounts)
    {
        var from = random.Next(accounts);
        var to = (from + 1 + random.Next(accounts - 1)) % accounts;
        return cluster.Transactions.RunAsync(async ctx =>
        {
            var a = await ctx.GetAsync(collection, Key(from));
            var b = await ctx.GetAsync(collection, Key(to));
            await ctx.ReplaceAsync(a, new Account(a.ContentAs<Account>()!.Balance - 1));
            await ctx.ReplaceAsync(b, new Account(b.ContentAs<Account>()!.Balance + 1));
        });
    }

    public static string Key(int account) => $"account-{account}";

    private static Dictionary<string, string> Options(string[] args)
    {
        var options = new Dictionary<string, string>();
        for (var i = 0; i + 1 < args.Length; i += 2)
            options[args[i].TrimStart('-')] = args[i + 1];
        return options;
    }
}

/// <summary>An account document, as compat/bench/transactions.mjs writes it: { "balance": N }.</summary>
internal sealed record Account([property: JsonPropertyName("balance")] long Balance);

[JsonSerializable(typeof(Account))]
internal sealed partial class AccountJson : JsonSerializerContext;
