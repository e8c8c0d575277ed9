using System.Diagnostics;

namespace Tern.Benchmarks.Sdk;

/// <summary>What one measured run achieved.</summary>
internal sealed record LoadMeasurement(int Concurrency, long Operations, double Seconds, double OpsPerSecond,
    double P50Micros, double P99Micros, double AllocatedBytesPerOperation);

/// <summary>
/// Runs the get/upsert mix with a fixed number of callers, each awaiting its previous call before
/// starting the next (closed loop), first unmeasured to warm up, then for the measured time.
/// Caller c's n-th operation has sequence number i = c + n * callers (see <see cref="MixedLoad"/>).
/// The callers await the SDK's ValueTasks in their own loop, so the harness allocates nothing
/// per operation (each caller's state machine is boxed once, at its first wait).
/// Allocation is the process-wide GC.GetTotalAllocatedBytes(precise) delta over the measured run
/// divided by its operations: it counts the SDK's read loop and thread-pool work as well as the
/// callers. Starting the callers costs about 200 B each, under 0.1 B per operation at these rates.
/// </summary>
internal static class LoadRun
{
    public static async Task<LoadMeasurement> MeasureAsync(MixedLoad load, int concurrency, LatencyRecorder recorder,
        TimeSpan warmup, TimeSpan measured)
    {
        await RunCallersAsync(load, concurrency, recorder, warmup);
        recorder.Clear();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
        var started = Stopwatch.GetTimestamp();
        await RunCallersAsync(load, concurrency, recorder, measured);
        var seconds = Stopwatch.GetElapsedTime(started).TotalSeconds;
        var allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
        var count = recorder.Count;
        var percentiles = recorder.PercentilesMicros(50, 99);
        return new LoadMeasurement(concurrency, count, seconds, count / seconds, percentiles[0], percentiles[1],
            count == 0 ? 0 : (double)allocated / count);
    }

    private static Task RunCallersAsync(MixedLoad load, int concurrency, LatencyRecorder recorder, TimeSpan duration)
    {
        var stopAt = Stopwatch.GetTimestamp() + (long)(duration.TotalSeconds * Stopwatch.Frequency);
        var callers = new Task[concurrency];
        for (var caller = 0; caller < concurrency; caller++)
        {
            var index = caller;
            callers[index] = Task.Run(() => CallAsync(load, index, concurrency, recorder, stopAt));
        }
        return Task.WhenAll(callers);
    }

    private static async Task CallAsync(MixedLoad load, int caller, int callers, LatencyRecorder recorder, long stopAt)
    {
        var collection = load.Collection;
        var keys = load.Keys;
        var value = load.Value;
        for (long i = caller; ; i += callers)
        {
            var start = Stopwatch.GetTimestamp();
            if (start >= stopAt)
                return;
            var key = keys[i % keys.Length];
            if (load.IsGet(i))
            {
                using var result = await collection.GetAsync(key).ConfigureAwait(false);
            }
            else
            {
                await collection.UpsertAsync(key, value, MixedLoad.Upsert).ConfigureAwait(false);
            }
            recorder.Record(caller, Stopwatch.GetTimestamp() - start);
        }
    }
}
