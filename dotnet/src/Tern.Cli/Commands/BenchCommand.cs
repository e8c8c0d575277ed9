using System.Diagnostics;
using Tern.Client;

namespace Tern.Cli.Commands;

/// <summary>
/// bench [--ops N] [--concurrency C] [--value-size BYTES]: a quick load check of one server,
/// Upsert then Get of N keys with C operations in flight; prints throughput and mean latency.
/// For percentiles and allocation figures use `make bench-sdk`.
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
        await MeasureAsync(context, "upsert", keys, concurrency, key => collection.UpsertAsync(key, value).AsTask());
        await MeasureAsync(context, "get", keys, concurrency, async key =>
        {
            using var _ = await collection.GetAsync(key);
        });
        return ExitCodes.Success;
    }

    private static async Task MeasureAsync(CommandContext context, string name, string[] keys, int concurrency,
        Func<string, Task> operation)
    {
        var next = -1;
        var clock = Stopwatch.StartNew();
        await Task.WhenAll(Enumerable.Range(0, concurrency).Select(async _ =>
        {
            for (var i = Interlocked.Increment(ref next); i < keys.Length; i = Interlocked.Increment(ref next))
                await operation(keys[i]);
        }));
        var seconds = clock.Elapsed.TotalSeconds;
        var opsPerSecond = keys.Length / seconds;
        var meanMicros = concurrency / opsPerSecond * 1e6;
        context.WriteLine($"{name,-7} {opsPerSecond,12:N0} ops/s   mean latency {meanMicros,9:N1} us");
    }
}
