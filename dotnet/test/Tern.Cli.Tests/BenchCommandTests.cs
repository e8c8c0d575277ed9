using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace Tern.Cli.Tests;

/// <summary>
/// `tern bench` against a real ternd of its own: the server counts the operations the report
/// claims, and the report's figures agree with each other and with the test's own clock within
/// bounds that hold on any machine.
/// </summary>
[Trait("Server", "ternd")]
public sealed partial class BenchCommandTests(TerndFixture ternd) : IClassFixture<TerndFixture>
{
    private const int Operations = 2000;
    private const int Concurrency = 4;

    [GeneratedRegex(@"^(?<phase>\w+) +(?<ops>\d+) ops in (?<ms>[\d.]+) ms, +(?<rate>[\d,]+) ops/s; " +
        @"latency us: mean (?<mean>[\d.]+), p50 (?<p50>[\d.]+), p99 (?<p99>[\d.]+), max (?<max>[\d.]+)$")]
    private static partial Regex PhaseLine();

    [Fact]
    public async Task ReportsThroughputAndLatenciesForEachPhase()
    {
        var before = await StatsAsync();
        var wall = Stopwatch.StartNew();
        var run = await CliRun.RunAsync("bench", "--ops", $"{Operations}", "--concurrency", $"{Concurrency}",
            "--value-size", "64", "--timeout", "10", "--server", ternd.Address);
        var wallMs = wall.Elapsed.TotalMilliseconds;
        var after = await StatsAsync();

        Assert.Equal(ExitCodes.Success, run.ExitCode);
        Assert.Equal("", run.Error);
        var lines = run.Output.Split('\n');
        Assert.Equal($"{ternd.Address}: {Operations} operations, {Concurrency} in flight, 64-byte values", lines[0]);
        var phases = lines[1..].Select(line => PhaseLine().Match(line)).ToArray();
        Assert.All(phases, phase => Assert.True(phase.Success, run.Output));
        Assert.Equal(["upsert", "get"], phases.Select(phase => phase.Groups["phase"].Value));

        // The server saw what the report counts: one store per key, of distinct keys, then a hit for each.
        long Delta(string name) => after[name] - before[name];
        Assert.Equal((Operations, Operations, Operations), (Delta("cmd_set"), Delta("curr_items"), Delta("get_hits")));

        var elapsedMs = 0.0;
        foreach (var phase in phases)
        {
            double Figure(string name) => double.Parse(phase.Groups[name].Value.Replace(",", ""), CultureInfo.InvariantCulture);
            var (ms, rate, mean, max) = (Figure("ms"), Figure("rate"), Figure("mean") / 1000, Figure("max") / 1000);
            Assert.Equal(Operations, int.Parse(phase.Groups["ops"].Value));
            elapsedMs += ms;
            // Throughput is the count over the elapsed time (the milliseconds are printed to 0.1).
            Assert.True(ms > 0 && Math.Abs(rate - Operations / (ms / 1000)) <= Operations / (ms / 1000) * (0.05 / ms) + 1, run.Output);
            // The histogram keeps 3 significant digits, and figures are printed to 0.1 us.
            const double Precision = 1.001;
            // Every operation ran within its phase.
            Assert.True(max > 0 && max <= ms * Precision + 0.1, run.Output);
            // The workers' latencies add up to no more than the phase's length per worker, and (all of
            // them busy until the last few operations) to at least half the phase: latencies in the
            // wrong unit, or a phase timed wrongly, break one of the two.
            var busyMs = mean * Operations;
            Assert.True(busyMs <= Concurrency * ms * Precision + Operations * 0.0001, $"{busyMs} ms of operations in {ms} ms: {run.Output}");
            Assert.True(busyMs >= ms / 2, $"{busyMs} ms of operations in {ms} ms: {run.Output}");
        }
        // The phases ran within the test's own measure of the whole run.
        Assert.True(elapsedMs <= wallMs, $"phases of {elapsedMs} ms in a run of {wallMs} ms: {run.Output}");
    }

    /// <summary>The server's statistics as `tern stats` prints them, the numeric ones.</summary>
    private async Task<Dictionary<string, long>> StatsAsync()
    {
        var run = await CliRun.RunAsync("stats", "--server", ternd.Address);
        Assert.Equal(ExitCodes.Success, run.ExitCode);
        return run.Output.Split('\n').Select(line => line.Split(' ', 2, StringSplitOptions.TrimEntries))
            .Where(parts => parts.Length == 2 && long.TryParse(parts[1], out _))
            .ToDictionary(parts => parts[0], parts => long.Parse(parts[1]));
    }
}
