using System.Text.Json.Serialization;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// One row of the table: one client against one server at one in-flight count. Both harnesses
/// (Tern.Benchmarks `sdk --json` and compat/bench/sdk-load.mjs) print rows as JSON lines with
/// these camelCase names; `sdk-report` reads them back. AllocatedBytesPerOperation is null for
/// Node.js, which has no per-operation allocation counter. ConnectMillis is the process's first
/// connect (for .NET it includes JIT compiling the connect path); ReconnectMillis a second one
/// right after, in the same process, which shows the protocol's part.
/// </summary>
internal sealed record SdkRow(
    string Client,
    string Server,
    string Scheme,
    int InFlight,
    long Operations,
    double Seconds,
    double OpsPerSecond,
    double P50Micros,
    double P99Micros,
    double? AllocatedBytesPerOperation,
    double ConnectMillis,
    double ReconnectMillis,
    int ValueSize,
    int Keys,
    int GetPercent,
    double WarmupSeconds);

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(SdkRow))]
internal sealed partial class SdkRowJsonContext : JsonSerializerContext;
