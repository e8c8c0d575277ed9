using System.Diagnostics;
using HdrHistogram;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// Per-operation latencies in nanoseconds, one HDR histogram (1 ns to 60 s, 3 significant
/// digits, as the Node.js harness's perf_hooks histogram) per caller, so recording allocates
/// nothing and needs no lock. Percentiles are read after the run from the callers' histograms
/// added together.
/// </summary>
internal sealed class LatencyRecorder
{
    private const long HighestNanos = 60_000_000_000;
    private const int SignificantDigits = 3;
    private static readonly double NanosPerTick = 1e9 / Stopwatch.Frequency;

    private readonly LongHistogram[] _callers;

    public LatencyRecorder(int callers)
    {
        _callers = new LongHistogram[callers];
        for (var i = 0; i < callers; i++)
            _callers[i] = new LongHistogram(1, HighestNanos, SignificantDigits);
    }

    /// <summary>Records one operation's latency, given in <see cref="Stopwatch"/> ticks.</summary>
    public void Record(int caller, long ticks) =>
        _callers[caller].RecordValue(Math.Clamp((long)(ticks * NanosPerTick), 1, HighestNanos));

    public void Clear()
    {
        foreach (var histogram in _callers)
            histogram.Reset();
    }

    public long Count => _callers.Sum(h => h.TotalCount);

    /// <summary>The latencies at the given percentiles (0..100), in microseconds.</summary>
    public double[] PercentilesMicros(params double[] percentiles)
    {
        var all = new LongHistogram(1, HighestNanos, SignificantDigits);
        foreach (var histogram in _callers)
            all.Add(histogram);
        return percentiles
            .Select(p => all.TotalCount == 0 ? 0 : all.GetValueAtPercentile(p) / 1000.0)
            .ToArray();
    }
}
