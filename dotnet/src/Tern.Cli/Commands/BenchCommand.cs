using System.Runtime.CompilerServices;
using Tern.Client;
using Tern.Client.IO;
using Tern.Client.Timing;

namespace Tern.Cli.Commands;

/// <summary>
/// bench [--ops N] [--concurrency C] [--value-size BYTES] [--scan]: a quick load check of one server,
/// Upsert then Get of N keys with C operations in flight. Prints, per phase, throughput and the
/// measured per-operation latency (mean, p50, p99, max). With --scan (couchbase://) the same
/// keys are then read again with a range scan of their prefix (16 vbuckets at once), then with
/// an ids-only one, and each scan's rate is given against the gets' (`make bench-scan-tern`). For allocation figures and
/// comparisons with the official SDK use `make bench-sdk` and `make bench-sdk-alloc`.
/// </summary>
public static class BenchCommand
{
    public static async Task<int> RunAsync(CommandContext context)
    {
        context.Args.AtMost(0);
        var operations = context.Args.PositiveOption("ops", 100_000);
        var concurrency = context.Args.PositiveOption("concurrency", 64);
        var value = new byte[context.Args.PositiveOption("value-size", 128)];
        Random.Shared.NextBytes(value);
        var keys = Enumerable.Range(0, operations).Select(i => $"tern-bench::{i:D8}").ToArray();
        var collection = await context.ConnectAsync();

        var scan = context.Args.Has("scan");
        if (scan && !context.Server.IsCouchbase)
            throw new UsageException($"bench --scan reads with a range scan, which needs a couchbase:// server; {context.Server.Scheme}:// has none");
        context.WriteLine($"{context.Server}: {operations} operations, {concurrency} in flight, {value.Length}-byte values");
        // Pooled builders: the operations' own state machines allocate nothing per call, so the
        // figures are the SDK's and not this loop's.
        await MeasureAsync(context, "upsert", keys, concurrency,
            [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))] async ValueTask (string key) =>
                await collection.UpsertAsync(key, value));
        var gets = await MeasureAsync(context, "get", keys, concurrency,
            [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))] async ValueTask (string key) =>
            {
                using var _ = await collection.GetAsync(key);
            });
        if (scan)
        {
            await MeasureScanAsync(context, "scan", collection, operations, gets, idsOnly: false);
            await MeasureScanAsync(context, "scan-ids", collection, operations, gets, idsOnly: true);
        }
        return ExitCodes.Success;
    }

    /// <summary>Reads the bench's keys with one range scan; at least <paramref name="operations"/> documents (an earlier, larger run's stay too).</summary>
    private static async Task MeasureScanAsync(CommandContext context, string name, Tern.Client.Collection collection, int operations,
        PhaseReport gets, bool idsOnly)
    {
        var options = new ScanOptions { IdsOnly = idsOnly, ConcurrentVBucketScans = 16, BatchItemLimit = 1_000, BatchByteLimit = 256 * 1024 };
        var phase = LightweightStopwatch.StartNew(TimeProvider.System);
        long documents = 0;
        await foreach (var item in collection.ScanAsync(new PrefixScan("tern-bench::"), options))
        {
            if (!idsOnly)
                _ = item.ContentAsMemory();
            documents++;
        }
        var elapsed = phase.Elapsed;
        if (documents < operations)
            throw new InvalidOperationException($"the scan read {documents} documents, fewer than the {operations} written");
        var rate = documents / elapsed.TotalSeconds;
        context.WriteLine(string.Create(System.Globalization.CultureInfo.InvariantCulture,
            $"{name,-9}{documents,10} docs in {elapsed.TotalMilliseconds:F1} ms, {rate,12:N0} docs/s; {name} / get: " +
            $"{rate / (gets.Operations / gets.Elapsed.TotalSeconds):F2}"));
    }

    private static async Task<PhaseReport> MeasureAsync(CommandContext context, string name, string[] keys, int concurrency,
        Func<string, ValueTask> operation)
    {
        var latencies = new PhaseLatencies();
        var next = -1;
        // The SDK's own clock: a struct and one timestamp read per operation, nothing allocated.
        var phase = LightweightStopwatch.StartNew(TimeProvider.System);
        await Task.WhenAll(Enumerable.Range(0, concurrency).Select(async _ =>
        {
            for (var i = Interlocked.Increment(ref next); i < keys.Length; i = Interlocked.Increment(ref next))
            {
                var stopwatch = LightweightStopwatch.StartNew(TimeProvider.System);
                await operation(keys[i]);
                latencies.Record(stopwatch.Elapsed);
            }
        }));
        var report = latencies.Report(name, phase.Elapsed);
        context.WriteLine(report.ToString());
        return report;
    }
}
