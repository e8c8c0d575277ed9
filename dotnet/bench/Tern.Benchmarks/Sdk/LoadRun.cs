using System.Diagnostics;

namespace Tern.Benchmarks.Sdk;

/// <summary>What one measured run achieved.</summary>
internal sealed record LoadResult(string Operation, int Concurrency, long Operations, double OpsPerSecond,
    double P50Micros, double P99Micros, double AllocatedBytesPerOperation);

/// <summary>
/// Runs one operation kind with a fixed number of callers, each awaiting its previous call before
/// starting the next (closed loop), first unmeasured to warm up, then for the measured time.
/// Allocation is the process-wide GC.GetTotalAllocatedBytes(precise) delta over the measured run
/// divided by its operations: it counts the SDK's read loop and thread-pool work as well as the
/// callers. Starting the callers costs about 200 B each, under 0.1 B per operation at these rates.
/// </summary>
internal static class LoadRun
{
    public static async Task<LoadResult> MeasureAsync<TOperation, TResult>(TOperation operation, string[] keys,
        int concurrency, LatencyRecorder recorder, TimeSpan warmup, TimeSpan measured)
        where TOperation : struct, ILoadOperation<TResult>
    {
        await RunCallersAsync<TOperation, TResult>(operation, keys, concurrency, recorder, warmup);
        recorder.Clear();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        var started = Stopwatch.GetTimestamp();
        await RunCallersAsync<TOperation, TResult>(operation, keys, concurrency, recorder, measured);
        var seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        var allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
        var count = recorder.Count;
        var percentiles = recorder.PercentilesMicros(0.50, 0.99);
        return new LoadResult(operation.Name, concurrency, count, count / seconds, percentiles[0], percentiles[1],
            count == 0 ? 0 : (double)allocated / count);
    }

    private static Task RunCallersAsync<TOperation, TResult>(TOperation operation, string[] keys, int concurrency,
        LatencyRecorder recorder, TimeSpan duration)
        where TOperation : struct, ILoadOperation<TResult>
    {
        var stopAt = Stopwatch.GetTimestamp() + (long)(duration.TotalSeconds * Stopwatch.Frequency);
        var callers = new Task[concurrency];
        for (var caller = 0; caller < concurrency; caller++)
        {
            var index = caller;
            callers[index] = Task.Run(() => CallAsync<TOperation, TResult>(operation, keys, index, concurrency, recorder, stopAt));
        }
        return Task.WhenAll(callers);
    }

    private static async Task CallAsync<TOperation, TResult>(TOperation operation, string[] keys, int caller,
        int callers, LatencyRecorder recorder, long stopAt)
        where TOperation : struct, ILoadOperation<TResult>
    {
        for (var i = caller; ; i += callers)
        {
            var start = Stopwatch.GetTimestamp();
            if (start >= stopAt)
                return;
            var result = await operation.StartAsync(keys[i % keys.Length]).ConfigureAwait(false);
            operation.Finish(result);
            if (!recorder.Record(caller, Stopwatch.GetTimestamp() - start))
                return;
        }
    }
}
