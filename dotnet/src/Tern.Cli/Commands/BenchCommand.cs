using System.Runtime.CompilerServices;
using Tern.Client.IO;
using Tern.Client.Timing;

namespace Tern.Cli.Commands;

/// <summary>
/// bench [--ops N] [--concurrency C] [--value-size BYTES]: a quick load check of one server,
/// Upsert then Get of N keys with C operations in flight. Prints, per phase, throughput and the
/// measured per-operation latency (mean, p50, p99, max). For allocation figures and comparisons
/// with the official SDK use `make bench-sdk` and `make bench-sdk-alloc`.
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

        context.WriteLine($"{context.Server}: {operations} operations, {concurrency} in flight, {value.Length}-byte values");
        // Pooled builders: the operations' own state machines allocate nothing per call, so the
        // figures are the SDK's and not this loop's.
        await MeasureAsync(context, "upsert", keys, concurrency,
            [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))] async ValueTask (string key) =>
                await collection.UpsertAsync(key, value));
        await MeasureAsync(context, "get", keys, concurrency,
            [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))] async ValueTask (string key) =>
            {
                using var _ = await collection.GetAsync(key);
            });
        return ExitCodes.Success;
    }

    private static async Task MeasureAsync(CommandContext context, string name, string[] keys, int concurrency,
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
        context.WriteLine(latencies.Report(name, phase.Elapsed).ToString());
    }
}
