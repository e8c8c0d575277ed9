using Tern.Cli.Commands;

namespace Tern.Cli.Tests;

/// <summary>`tern bench`'s per-phase figures, from latencies the test chooses.</summary>
public sealed class PhaseReportTests
{
    // The histogram keeps 3 significant digits.
    private static void AssertClose(double expectedMs, TimeSpan actual) =>
        Assert.InRange(actual.TotalMilliseconds, expectedMs * 0.999, expectedMs * 1.001);

    [Fact]
    public void LatenciesComeFromTheRecordedOperationsNotFromThroughput()
    {
        var latencies = new PhaseLatencies();
        foreach (var ms in new[] { 1, 1, 1, 97 })
            latencies.Record(TimeSpan.FromMilliseconds(ms));

        // Four operations, four in flight, over 10 ms: a mean derived from throughput would be
        // 4 * 10 ms / 4 = 10 ms. The operations' own latencies average 25 ms.
        var report = latencies.Report("get", TimeSpan.FromMilliseconds(10));

        Assert.Equal(("get", 4L, TimeSpan.FromMilliseconds(10)), (report.Name, report.Operations, report.Elapsed));
        AssertClose(25, report.Mean);
        AssertClose(1, report.P50);
        AssertClose(97, report.P99);
        AssertClose(97, report.Max);
    }

    [Fact]
    public void ALatencyBeyondAnHourIsClampedToAnHour()
    {
        var latencies = new PhaseLatencies();
        latencies.Record(TimeSpan.FromDays(2));

        AssertClose(TimeSpan.FromHours(1).TotalMilliseconds, latencies.Report("upsert", TimeSpan.FromDays(2)).Max);
    }

    [Fact]
    public void TheLineShowsThroughputAndLatenciesInMicroseconds()
    {
        var report = new PhaseReport("upsert", 4000, TimeSpan.FromMilliseconds(10), Mean: TimeSpan.FromMicroseconds(25.5),
            P50: TimeSpan.FromMicroseconds(20), P99: TimeSpan.FromMicroseconds(97.3), Max: TimeSpan.FromMilliseconds(1.2));

        Assert.Equal("upsert       4000 ops in 10.0 ms,      400,000 ops/s; latency us: mean 25.5, p50 20.0, p99 97.3, max 1200.0",
            report.ToString());
    }
}
