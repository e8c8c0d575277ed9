using System.Globalization;
using System.Text.RegularExpressions;

namespace Tern.Cli.Tests;

/// <summary>`tern bench` against a real ternd: the report's shape and bounds that hold on any machine.</summary>
[Trait("Server", "ternd")]
public sealed partial class BenchCommandTests(TerndFixture ternd) : IClassFixture<TerndFixture>
{
    private const int Operations = 300;
    private const int Concurrency = 4;

    [GeneratedRegex(@"^(?<phase>\w+) +(?<ops>\d+) ops in (?<ms>[\d.]+) ms, +[\d,]+ ops/s; " +
        @"latency us: mean (?<mean>[\d.]+), p50 (?<p50>[\d.]+), p99 (?<p99>[\d.]+), max (?<max>[\d.]+)$")]
    private static partial Regex PhaseLine();

    [Fact]
    public async Task ReportsThroughputAndLatenciesForEachPhase()
    {
        var run = await CliRun.RunAsync("bench", "--ops", $"{Operations}", "--concurrency", $"{Concurrency}",
            "--value-size", "64", "--timeout", "10", "--server", ternd.Address);

        Assert.Equal(ExitCodes.Success, run.ExitCode);
        Assert.Equal("", run.Error);
        var lines = run.Output.Split('\n');
        Assert.Equal($"{ternd.Address}: {Operations} operations, {Concurrency} in flight, 64-byte values", lines[0]);
        var phases = lines[1..].Select(line => PhaseLine().Match(line)).ToArray();
        Assert.All(phases, phase => Assert.True(phase.Success, run.Output));
        Assert.Equal(["upsert", "get"], phases.Select(phase => phase.Groups["phase"].Value));
        foreach (var phase in phases)
        {
            double Figure(string name) => double.Parse(phase.Groups[name].Value, CultureInfo.InvariantCulture);
            var (mean, p50, p99, max) = (Figure("mean"), Figure("p50"), Figure("p99"), Figure("max"));
            Assert.Equal(Operations, int.Parse(phase.Groups["ops"].Value));
            Assert.True(p50 > 0 && p50 <= p99 && p99 <= max, run.Output);
            Assert.True(mean > 0 && mean <= max, run.Output);
            // Generous: no operation may outlast its 10 s timeout by much, however busy the machine.
            // That the figures are measured, not derived, is PhaseReportTests' (on chosen latencies).
            Assert.True(max < 30_000_000, run.Output);
        }
    }
}
