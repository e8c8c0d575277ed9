using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Jobs;

namespace Tern.Benchmarks.Seeds;

/// <summary>
/// One short job for every seed table, so `make bench-seeds` finishes in about 4 minutes on a
/// 2-core machine: one launch, 3 warm-up and 20 measured iterations of about 250 ms each.
/// On a quiet machine that settles the ratios to a few hundredths; on a loaded one read the
/// RatioSD column, or pass `--job default` for BenchmarkDotNet's full-length runs.
/// </summary>
public static class SeedConfig
{
    public static IConfig Create() =>
        DefaultConfig.Instance
            .AddJob(Job.Default
                .WithId("Seed")
                .WithLaunchCount(1)
                .WithWarmupCount(3)
                .WithIterationCount(20)
                .WithIterationTime(Perfolizer.Horology.TimeInterval.FromMilliseconds(250))
                // The runtime tiers code up only after 100 ms without new JIT activity; on a
                // loaded machine that quiet spell may not come before measuring starts, and a
                // benchmark is then timed in unoptimized code. Tier up after 30 calls instead.
                .WithEnvironmentVariable("DOTNET_TC_CallCountingDelayMs", "0")
                .AsDefault())
            .AddExporter(MarkdownExporter.GitHub)
            .WithOptions(ConfigOptions.DisableLogFile);
}
