namespace Tern.Client.Tests.Support;

/// <summary>A <see cref="FakeServer"/> with a one-connection cluster connected to it.</summary>
public sealed class FakeCluster : IAsyncDisposable
{
    private FakeCluster(FakeServer server, Cluster cluster)
    {
        Server = server;
        Cluster = cluster;
        Collection = cluster.Bucket("b").DefaultCollection();
    }

    public FakeServer Server { get; }

    public Cluster Cluster { get; }

    public Collection Collection { get; }

    public static async Task<FakeCluster> StartAsync(TimeSpan timeout, int maxInFlight = 1024)
    {
        var server = new FakeServer();
        var cluster = await Cluster.ConnectAsync(server.ConnectionString, new ClusterOptions
        {
            KvTimeout = timeout,
            MaxInFlightPerConnection = maxInFlight,
            MaxConnectionsPerNode = 1,
        });
        return new FakeCluster(server, cluster);
    }

    public async ValueTask DisposeAsync()
    {
        await Cluster.DisposeAsync();
        await Server.DisposeAsync();
    }
}
