using System.Text.Json;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Management;

/// <summary>
/// Finds the management port in a cluster map, as the official SDKs do: the newest map of an
/// open bucket when one has arrived; else the cluster-wide map a seed gives to
/// GET_CLUSTER_CONFIG without a selected bucket (Couchbase Server 6.5 and later); else the first
/// map of a bucket still opening. Never guesses a port: a map that lists no "mgmt" means the
/// service is not available, and <see cref="Found.WhyNone"/> says why.
/// </summary>
internal sealed class ManagementEndpointFinder(
    Func<IEnumerable<BucketTopology>> topologies,
    IReadOnlyList<(string Host, int Port)> seeds,
    ConnectionSettings probe,
    TimeSpan requestTimeout)
{
    /// <summary>The endpoints (empty when none) and, when empty, why.</summary>
    public sealed record Found(IReadOnlyList<ManagementEndpoint> Endpoints, string WhyNone);

    public async Task<Found> FindAsync(CancellationToken cancellationToken)
    {
        if (FromOpenBuckets() is { } found)
            return found;
        var global = await FromSeedAsync(cancellationToken).ConfigureAwait(false);
        if (global.Endpoints.Count > 0)
            return global;
        // A bucket may have opened meanwhile, or be about to: its map is the next best.
        while (FromOpenBuckets() is null && topologies().Where(t => !t.Ready.IsCompleted).Select(t => t.Ready).ToArray() is { Length: > 0 } opening)
            await Task.WhenAny(opening).WaitAsync(cancellationToken).ConfigureAwait(false);
        return FromOpenBuckets() ?? global;
    }

    private Found? FromOpenBuckets()
    {
        string? without = null;
        foreach (var topology in topologies())
        {
            if (topology.Map is not { } map)
                continue;
            if (map.Management.Count > 0)
                return new Found(map.Management, "");
            without = topology.Name;
        }
        return without is null
            ? null
            : new Found([], $"the cluster map of bucket '{without}' lists no node with the \"mgmt\" service (is ternd's management port off?)");
    }

    private async Task<Found> FromSeedAsync(CancellationToken cancellationToken)
    {
        var reasons = new List<string>();
        foreach (var (host, port) in seeds)
        {
            try
            {
                await using var connection = await Connection.OpenAsync(host, port, probe, cancellationToken).ConfigureAwait(false);
                var answer = await connection.SendAsync(new RawRequest(Opcode.GetClusterConfig), requestTimeout, cancellationToken)
                    .ConfigureAwait(false);
                if (answer.Status != ResponseStatus.Success)
                {
                    // The server has no cluster-wide map: another seed of the same cluster will not either.
                    reasons.Add($"{connection.Endpoint} has no cluster-wide map (GET_CLUSTER_CONFIG without a bucket answered " +
                                $"{connection.ErrorMap.NameOf((ushort)answer.Status) ?? $"0x{(ushort)answer.Status:x2}"}) " +
                                "and no bucket is open: open one first (cluster.Bucket(name))");
                    break;
                }
                using var map = JsonDocument.Parse(answer.Value);
                var tls = probe.Tls is not null;
                var endpoints = ManagementEndpoints.Read(map.RootElement, ClusterMap.UnbracketedHost(host), tls);
                return new Found(endpoints, $"the cluster map of {connection.Endpoint} lists no node with the " +
                                            $"\"{(tls ? "mgmtSSL" : "mgmt")}\" service (is ternd's management {(tls ? "TLS " : "")}port off?)");
            }
            catch (Exception e) when (e is AuthenticationFailureException or CertificateValidationException)
            {
                throw;
            }
            catch (Exception e) when (!cancellationToken.IsCancellationRequested && e is not OperationCanceledException)
            {
                reasons.Add($"{host}:{port}: {e.Message}");
            }
        }
        return new Found([], string.Join("; ", reasons));
    }
}
