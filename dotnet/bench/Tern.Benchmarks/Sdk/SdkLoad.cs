using System.Globalization;
using Tern.Client;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// `Tern.Benchmarks sdk --target name=host:port ...`: Get and Upsert through Tern.Client against
/// each target at each concurrency (see <see cref="SdkLoadOptions"/>), printed as one markdown table.
/// </summary>
public static class SdkLoad
{
    // Room for every sample of a run: 4M latencies (32 MB) shared among the callers.
    private const int SampleCapacity = 4 << 20;

    public static async Task<int> RunAsync(string[] args)
    {
        var options = SdkLoadOptions.Parse(args);
        var value = new byte[options.ValueSize];
        Random.Shared.NextBytes(value);
        var keys = Enumerable.Range(0, options.KeyCount).Select(i => $"bench::{i:D8}").ToArray();
        var warmup = TimeSpan.FromSeconds(options.WarmupSeconds);
        var measured = TimeSpan.FromSeconds(options.Seconds);

        Console.WriteLine($"{options.ValueSize}-byte values, {options.KeyCount} keys, {options.Seconds} s per row " +
                          $"after {options.WarmupSeconds} s of warm-up; .NET {Environment.Version}, {Environment.ProcessorCount} cores");
        Console.WriteLine();
        Console.WriteLine("| server | operation | in flight | ops/s | p50 (µs) | p99 (µs) | allocated B/op |");
        Console.WriteLine("|---|---|---:|---:|---:|---:|---:|");
        foreach (var (name, address) in options.Targets)
        {
            var connectionString = address.Contains("://", StringComparison.Ordinal) ? address : $"tern://{address}";
            await using var cluster = await Cluster.ConnectAsync(connectionString);
            var collection = cluster.Bucket("default").DefaultCollection();
            foreach (var key in keys)
                await collection.UpsertAsync(key, value);
            foreach (var concurrency in options.Concurrencies)
            {
                var recorder = new LatencyRecorder(concurrency, SampleCapacity / concurrency);
                Print(name, await LoadRun.MeasureAsync<GetLoad, GetResult>(
                    new GetLoad(collection), keys, concurrency, recorder, warmup, measured));
                Print(name, await LoadRun.MeasureAsync<UpsertLoad, MutationResult>(
                    new UpsertLoad(collection, value), keys, concurrency, recorder, warmup, measured));
            }
        }
        return 0;
    }

    private static void Print(string server, LoadResult result) =>
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"| {server} | {result.Operation} | {result.Concurrency} | {result.OpsPerSecond:N0} | " +
            $"{result.P50Micros:F1} | {result.P99Micros:F1} | {result.AllocatedBytesPerOperation:F1} |"));
}
