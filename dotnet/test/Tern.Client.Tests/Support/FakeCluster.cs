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

    /// <summary>The cluster's one connection.</summary>
    internal Tern.Client.IO.Connection Connection => Cluster.Nodes[0].Connections[0];

    /// <summary>The endpoint every message names: "127.0.0.1:port".</summary>
    public string Endpoint => $"127.0.0.1:{Server.Port}";

    public static Task<FakeCluster> StartAsync(TimeSpan timeout, int maxInFlight = 1024) =>
        StartAsync(new ClusterOptions { KvTimeout = timeout, MaxInFlightPerConnection = maxInFlight });

    /// <summary>Connects with <paramref name="options"/>, limited to one connection.</summary>
    public static async Task<FakeCluster> StartAsync(ClusterOptions options)
    {
        var server = new FakeServer();
        var cluster = await Cluster.ConnectAsync(server.ConnectionString, options with { MaxConnectionsPerNode = 1 });
        return new FakeCluster(server, cluster);
    }

    public async ValueTask DisposeAsync()
    {
        await Cluster.DisposeAsync();
        await Server.DisposeAsync();
    }
}
