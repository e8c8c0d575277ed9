using System.Globalization;
using System.Text.Json;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// Prints rows as one markdown table, after a line describing the load, and then, for every
/// Node.js row, how Tern.Client compares with it on the same server over couchbase://, and for
/// every couchbases:// row, how it compares with the same client over couchbase://.
/// `Tern.Benchmarks sdk-report FILE...` does it for the JSON lines the harnesses printed.
/// </summary>
internal static class SdkReport
{
    public const string TernClient = "Tern.Client";

    public static int Run(string[] files)
    {
        if (files.Length == 0)
        {
            Console.Error.WriteLine("usage: sdk-report FILE... (JSON lines from `sdk --json` and compat/bench/sdk-load.mjs)");
            return 2;
        }
        var rows = new List<SdkRow>();
        foreach (var file in files)
        {
            foreach (var line in File.ReadLines(file))
            {
                if (string.IsNullOrWhiteSpace(line))
                    continue;
                rows.Add(JsonSerializer.Deserialize(line, SdkRowJsonContext.Default.SdkRow)
                         ?? throw new InvalidDataException($"{file}: not a row: {line}"));
            }
        }
        if (rows.Count == 0)
        {
            Console.Error.WriteLine($"sdk-report: no rows in {string.Join(", ", files)}");
            return 1;
        }
        Print(rows, Console.Out);
        return 0;
    }

    public static void Print(IReadOnlyList<SdkRow> rows, TextWriter output)
    {
        var first = rows[0];
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{first.ValueSize}-byte JSON values, {first.Keys} keys, {first.GetPercent}% get / {100 - first.GetPercent}% upsert, " +
            $"{first.Seconds:0.#} s per row after {first.WarmupSeconds:0.#} s of warm-up"));
        output.WriteLine("connect: connect + bucket + collection + first get, the process's first time; again: once more in the same process");
        if (rows.Any(r => r.ValueSize != first.ValueSize || r.Keys != first.Keys || r.GetPercent != first.GetPercent))
            output.WriteLine("WARNING: the rows ran different loads (value size, keys or mix differ); do not compare them");
        output.WriteLine();
        output.WriteLine("| client | server | protocol | in flight | ops/s | p50 (µs) | p99 (µs) | allocated B/op | connect (ms) | connect again (ms) |");
        output.WriteLine("|---|---|---|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var row in rows)
        {
            var allocated = row.AllocatedBytesPerOperation is { } bytes ? string.Create(CultureInfo.InvariantCulture, $"{bytes:F1}") : "n/a";
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {row.Client} | {row.Server} | {row.Scheme}:// | {row.InFlight} | {row.OpsPerSecond:N0} | " +
                $"{row.P50Micros:F1} | {row.P99Micros:F1} | {allocated} | {row.ConnectMillis:F1} | {row.ReconnectMillis:F1} |"));
        }
        var ratios = new List<string>();
        foreach (var node in rows.Where(r => r.Client.StartsWith("Node.js", StringComparison.Ordinal)))
        {
            var tern = rows.FirstOrDefault(r => r.Client == TernClient && r.Server == node.Server &&
                                                r.Scheme == node.Scheme && r.InFlight == node.InFlight);
            if (tern is null || node.OpsPerSecond == 0 || node.P99Micros == 0)
                continue;
            ratios.Add(string.Create(CultureInfo.InvariantCulture,
                $"{TernClient} / {node.Client} on {node.Server} over {node.Scheme}://, {node.InFlight} in flight: " +
                $"ops/s x{tern.OpsPerSecond / node.OpsPerSecond:F2}, p99 x{tern.P99Micros / node.P99Micros:F2}"));
        }
        foreach (var tls in rows.Where(r => r.Scheme == "couchbases"))
        {
            var plain = rows.FirstOrDefault(r => r.Client == tls.Client && r.Server == tls.Server &&
                                                 r.Scheme == "couchbase" && r.InFlight == tls.InFlight);
            if (plain is null || plain.OpsPerSecond == 0 || plain.P99Micros == 0)
                continue;
            ratios.Add(string.Create(CultureInfo.InvariantCulture,
                $"{tls.Client} on {tls.Server}, couchbases:// / couchbase://, {tls.InFlight} in flight: " +
                $"ops/s x{tls.OpsPerSecond / plain.OpsPerSecond:F2}, p99 x{tls.P99Micros / plain.P99Micros:F2}, " +
                $"allocated B/op {tls.AllocatedBytesPerOperation?.ToString("F1", CultureInfo.InvariantCulture) ?? "n/a"} vs " +
                $"{plain.AllocatedBytesPerOperation?.ToString("F1", CultureInfo.InvariantCulture) ?? "n/a"}"));
        }
        if (ratios.Count > 0)
        {
            output.WriteLine();
            ratios.ForEach(output.WriteLine);
        }
    }
}
