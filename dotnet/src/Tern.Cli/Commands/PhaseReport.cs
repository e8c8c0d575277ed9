using System.Globalization;
using HdrHistogram;

namespace Tern.Cli.Commands;

/// <summary>
/// The latency of each operation of one bench phase, measured on its own. Recording is
/// thread-safe: every worker of the phase records into the same instance.
/// </summary>
internal sealed class PhaseLatencies
{
    // Recorded in TimeSpan ticks (100 ns); longer ones are clamped so a huge --timeout cannot overflow the histogram.
    private static readonly long LongestRecordedTicks = TimeSpan.FromHours(1).Ticks;

    private readonly LongConcurrentHistogram _histogram = new(1, LongestRecordedTicks, 3);

    public void Record(TimeSpan latency) => _histogram.RecordValue(Math.Clamp(latency.Ticks, 1, LongestRecordedTicks));

    /// <summary>
    /// The phase's figures: throughput from <paramref name="elapsed"/>, the latencies from the
    /// recorded operations alone. With several operations in flight the two are unrelated, so
    /// the mean latency cannot be derived from throughput.
    /// </summary>
    public PhaseReport Report(string name, TimeSpan elapsed) => new(name, _histogram.TotalCount, elapsed,
        Mean: TimeSpan.FromTicks((long)Math.Round(_histogram.GetMean())),
        P50: TimeSpan.FromTicks(_histogram.GetValueAtPercentile(50)),
        P99: TimeSpan.FromTicks(_histogram.GetValueAtPercentile(99)),
        Max: TimeSpan.FromTicks(_histogram.GetMaxValue()));
}

/// <summary>One line of `tern bench`: a phase's throughput and its operations' latencies.</summary>
internal readonly record struct PhaseReport(string Name, long Operations, TimeSpan Elapsed,
    TimeSpan Mean, TimeSpan P50, TimeSpan P99, TimeSpan Max)
{
    // Invariant, so scripts can parse the figures whatever the machine's culture.
    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"{Name,-7}{Operations,10} ops in {Elapsed.TotalMilliseconds:F1} ms, {Operations / Elapsed.TotalSeconds,12:N0} ops/s;" +
        $" latency us: mean {Mean.TotalMicroseconds:F1}, p50 {P50.TotalMicroseconds:F1}," +
        $" p99 {P99.TotalMicroseconds:F1}, max {Max.TotalMicroseconds:F1}");
}
