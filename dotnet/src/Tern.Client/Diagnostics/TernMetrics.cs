using System.Diagnostics;
using System.Diagnostics.Metrics;
using Tern.Client.Protocol;
using Tern.Client.Timing;

namespace Tern.Client.Diagnostics;

/// <summary>
/// The SDK's instruments: Meter "Tern.Client" and ActivitySource "Tern.Client". Every measurement
/// carries the server's endpoint ("server.address"), and operation measurements the operation
/// ("op"). With no listener attached, recording costs an enabled-check and nothing is allocated.
/// </summary>
public static class TernMetrics
{
    public const string Name = "Tern.Client";

    public static readonly Meter Meter = new(Name, "1.0");
    public static readonly ActivitySource ActivitySource = new(Name, "1.0");

    public static readonly Counter<long> Operations =
        Meter.CreateCounter<long>("tern.client.operations", description: "Operations completed (any outcome)");

    public static readonly Histogram<double> Duration =
        Meter.CreateHistogram<double>("tern.client.operation.duration", unit: "ms", description: "Time from call to response");

    public static readonly Histogram<double> ServerDuration =
        Meter.CreateHistogram<double>("tern.server_duration", unit: "us",
            description: "Time the server says it spent on a request (alt responses with Tracing negotiated)");

    public static readonly Counter<long> Timeouts =
        Meter.CreateCounter<long>("tern.client.timeouts", description: "Operations that timed out");

    public static readonly Counter<long> Orphans =
        Meter.CreateCounter<long>("tern.client.orphans", description: "Responses that arrived after their operation timed out");

    public static readonly Counter<long> ConnectionFailures =
        Meter.CreateCounter<long>("tern.client.connection.failures", description: "Connections that failed or could not be opened");

    internal static void RecordCompletion(Opcode opcode, string endpoint, in LightweightStopwatch started)
    {
        var (op, server) = (Op(opcode), Server(endpoint));
        Operations.Add(1, op, server);
        if (Duration.Enabled)
            Duration.Record(started.Elapsed.TotalMilliseconds, op, server);
    }

    internal static void RecordServerDuration(Opcode opcode, string endpoint, TimeSpan duration)
    {
        if (ServerDuration.Enabled)
            ServerDuration.Record(duration.TotalMicroseconds, Op(opcode), Server(endpoint));
    }

    internal static void RecordTimeout(Opcode opcode, string endpoint)
    {
        var (op, server) = (Op(opcode), Server(endpoint));
        Operations.Add(1, op, server);
        Timeouts.Add(1, op, server);
    }

    internal static void RecordOrphan(string endpoint) => Orphans.Add(1, Server(endpoint));

    internal static void RecordConnectionFailure(string endpoint) => ConnectionFailures.Add(1, Server(endpoint));

    private static KeyValuePair<string, object?> Op(Opcode opcode) => new("op", opcode.Name());

    private static KeyValuePair<string, object?> Server(string endpoint) => new("server.address", endpoint);
}
