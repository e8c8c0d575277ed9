using System.Diagnostics;
using Tern.Client;
using Tern.Client.Exceptions;
using Tern.Client.Security;

namespace Tern.Benchmarks.Sdk;

/// <summary>A connected cluster, the collection the load works on and how long getting there took.</summary>
internal sealed record SdkConnection(Cluster Cluster, Collection Collection, double ConnectMillis) : IAsyncDisposable
{
    public ValueTask DisposeAsync() => Cluster.DisposeAsync();
}

internal static class SdkConnect
{
    /// <summary>
    /// Connects as an application does and times it: Cluster.ConnectAsync, Bucket, DefaultCollection
    /// and the first GetAsync (of <paramref name="firstKey"/>; a miss still counts its round trip, and
    /// bench-sdk.sh loads the keys first so that it is a hit). couchbase:// and couchbases:// log
    /// in with the options' user (over TLS trusting --cacert); memcached:// and tern:// do not log in.
    /// </summary>
    public static async Task<SdkConnection> ConnectAsync(SdkTarget target, SdkLoadOptions options, string firstKey)
    {
        var clusterOptions = target.IsCouchbase
            ? new ClusterOptions { UserName = options.UserName, Password = options.Password }
            : new ClusterOptions();
        if (options.CaFile is not null)
            clusterOptions = clusterOptions with
            {
                TlsSettings = new TlsSettings { TrustedServerCertificateFactory = CertificateFactory.FromPemFile(options.CaFile) },
            };
        var started = Stopwatch.GetTimestamp();
        var cluster = await Cluster.ConnectAsync(target.ConnectionString, clusterOptions);
        try
        {
            var collection = cluster.Bucket(options.BucketName).DefaultCollection();
            try
            {
                using var first = await collection.GetAsync(firstKey);
            }
            catch (DocumentNotFoundException)
            {
            }
            return new SdkConnection(cluster, collection, Stopwatch.GetElapsedTime(started).TotalMilliseconds);
        }
        catch
        {
            await cluster.DisposeAsync();
            throw;
        }
    }
}
