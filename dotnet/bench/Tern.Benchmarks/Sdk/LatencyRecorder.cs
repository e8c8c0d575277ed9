namespace Tern.Benchmarks.Sdk;

/// <summary>
/// Per-operation latencies in <see cref="System.Diagnostics.Stopwatch"/> ticks, one preallocated
/// array per worker so recording allocates nothing and needs no lock. Percentiles are computed
/// after the run over every worker's samples.
/// </summary>
internal sealed class LatencyRecorder
{
    private readonly long[][] _samples;
    private readonly int[] _counts;

    public LatencyRecorder(int workers, int capacityPerWorker)
    {
        _samples = new long[workers][];
        for (var i = 0; i < workers; i++)
            _samples[i] = new long[capacityPerWorker];
        _counts = new int[workers];
    }

    /// <summary>Records one sample; false once the worker's array is full (the worker should stop).</summary>
    public bool Record(int worker, long ticks)
    {
        var count = _counts[worker];
        var samples = _samples[worker];
        if (count >= samples.Length)
            return false;
        samples[count] = ticks;
        _counts[worker] = count + 1;
        return true;
    }

    public void Clear() => Array.Clear(_counts);

    public long Count => _counts.Sum(c => (long)c);

    /// <summary>The latencies at the given quantiles (0..1), in microseconds.</summary>
    public double[] PercentilesMicros(params double[] quantiles)
    {
        var all = new long[Count];
        var offset = 0;
        for (var i = 0; i < _samples.Length; i++)
        {
            Array.Copy(_samples[i], 0, all, offset, _counts[i]);
            offset += _counts[i];
        }
        Array.Sort(all);
        return quantiles
            .Select(q => all.Length == 0 ? 0 : all[(int)Math.Clamp(Math.Ceiling(q * all.Length) - 1, 0, all.Length - 1)])
            .Select(ticks => ticks * 1_000_000.0 / System.Diagnostics.Stopwatch.Frequency)
            .ToArray();
    }
}
