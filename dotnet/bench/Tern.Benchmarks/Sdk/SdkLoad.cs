using System.Text.Json;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// `Tern.Benchmarks sdk --target name=connection-string ...`: the get/upsert mix through
/// Tern.Client against each target at each concurrency (see <see cref="SdkLoadOptions"/>),
/// printed as one markdown table (<see cref="SdkReport"/>), or with --json as one JSON line
/// per row for `sdk-report` to gather with the Node.js harness's rows (scripts/bench-sdk.sh).
/// With --load-only it only connects and stores the keys.
/// </summary>
public static class SdkLoad
{
    // Every measured run loads its keys first with this many upserts in flight.
    private const int LoadInFlight = 64;

    public static async Task<int> RunAsync(string[] args)
    {
        SdkLoadOptions options;
        try
        {
            options = SdkLoadOptions.Parse(args);
        }
        catch (Exception e) when (e is ArgumentException or FormatException)
        {
            Console.Error.WriteLine($"sdk: {e.Message}");
            return 2;
        }
        var value = BenchDocument.Create(options.ValueSize);
        var keys = Enumerable.Range(0, options.KeyCount).Select(BenchDocument.Key).ToArray();
        var warmup = TimeSpan.FromSeconds(options.WarmupSeconds);
        var measured = TimeSpan.FromSeconds(options.Seconds);
        var rows = new List<SdkRow>();
        foreach (var target in options.Targets)
        {
            await using var connection = await SdkConnect.ConnectAsync(target, options, keys[0]);
            var load = new MixedLoad(connection.Collection, keys, value, options.GetPercent);
            if (options.LoadOnly)
            {
                await load.LoadAsync(LoadInFlight);
                continue;
            }
            // A process's first connect also pays for JIT compiling the connect path; a second one shows the protocol's part.
            double reconnectMillis;
            await using (var again = await SdkConnect.ConnectAsync(target, options, keys[0]))
                reconnectMillis = again.ConnectMillis;
            await load.LoadAsync(LoadInFlight);
            foreach (var concurrency in options.Concurrencies)
            {
                var result = await LoadRun.MeasureAsync(load, concurrency, new LatencyRecorder(concurrency), warmup, measured);
                var row = new SdkRow(SdkReport.TernClient, target.Name, target.Scheme, concurrency, result.Operations,
                    result.Seconds, result.OpsPerSecond, result.P50Micros, result.P99Micros, result.AllocatedBytesPerOperation,
                    connection.ConnectMillis, reconnectMillis, options.ValueSize, options.KeyCount, options.GetPercent, options.WarmupSeconds);
                if (options.Json)
                    Console.WriteLine(JsonSerializer.Serialize(row, SdkRowJsonContext.Default.SdkRow));
                else
                    rows.Add(row);
            }
        }
        if (!options.Json && rows.Count > 0)
            SdkReport.Print(rows, Console.Out);
        return 0;
    }
}
