using Microsoft.Extensions.Logging;

namespace Tern.Client.IO;

/// <summary>What a connection needs from the cluster options (one object shared by every connection).</summary>
internal sealed record ConnectionSettings(
    int MaxInFlight,
    TimeSpan ConnectTimeout,
    TimeSpan SweepInterval,
    IReadOnlyList<IConnectionInitializer> Initializers,
    OrphanReporter Orphans,
    ILogger Logger,
    TimeProvider Time);
