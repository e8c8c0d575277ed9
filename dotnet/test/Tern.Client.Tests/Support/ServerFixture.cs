namespace Tern.Client.Tests.Support;

/// <summary>One server process and a cluster connected to it, shared by the tests of a class.</summary>
public abstract class ServerFixture : IAsyncLifetime
{
    public ServerProcess Server { get; private set; } = null!;

    public Cluster Cluster { get; private set; } = null!;

    public Collection Collection { get; private set; } = null!;

    protected abstract Task<ServerProcess> StartServerAsync();

    public async Task InitializeAsync()
    {
        Server = await StartServerAsync();
        Cluster = await Cluster.ConnectAsync(Server.ConnectionString, new ClusterOptions { KvTimeout = TimeSpan.FromSeconds(5) });
        Collection = Cluster.Bucket("default").DefaultCollection();
    }

    public async Task DisposeAsync()
    {
        await Cluster.DisposeAsync();
        await Server.DisposeAsync();
    }
}

public sealed class MemcachedFixture : ServerFixture
{
    protected override Task<ServerProcess> StartServerAsync() => ServerProcess.StartMemcachedAsync();
}

public sealed class TerndFixture : ServerFixture
{
    protected override Task<ServerProcess> StartServerAsync() => ServerProcess.StartTerndAsync();
}
