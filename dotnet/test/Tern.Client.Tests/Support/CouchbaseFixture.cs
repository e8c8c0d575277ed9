namespace Tern.Client.Tests.Support;

/// <summary>
/// One ternd started from server/config/dev.toml (bucket "default" with scope app: users, orders;
/// user Administrator / password) and a couchbase:// cluster connected to it, its bucket open.
/// Shared by the tests of a class; each class that uses it gets its own server. Subclasses may
/// start the server otherwise.
/// </summary>
public class CouchbaseFixture : IAsyncLifetime
{
    public const string UserName = "Administrator";
    public const string Password = "password";
    public const string BucketName = "default";

    // Generous: a busy two-core machine runs the whole suite in parallel; the bounds only turn hangs into failures.
    public static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(20);

    public ServerProcess Server { get; private set; } = null!;

    public Cluster Cluster { get; private set; } = null!;

    public Bucket Bucket { get; private set; } = null!;

    public virtual string ConnectionString => Server.CouchbaseConnectionString;

    /// <summary>The options every couchbase:// test starts from: the dev credentials, a KV timeout generous enough for a busy machine.</summary>
    public static ClusterOptions Options(string password = Password) => new()
    {
        UserName = UserName,
        Password = password,
        KvTimeout = TimeSpan.FromSeconds(10),
        ConnectTimeout = TimeSpan.FromSeconds(10),
    };

    protected virtual Task<ServerProcess> StartServerAsync() => ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath);

    /// <summary>The options of the fixture's own cluster.</summary>
    protected virtual ClusterOptions ClientOptions() => Options();

    public async Task InitializeAsync()
    {
        Server = await StartServerAsync();
        Cluster = await Cluster.ConnectAsync(ConnectionString, ClientOptions());
        Bucket = Cluster.Bucket(BucketName);
        await Bucket.WaitUntilReadyAsync(ReadyTimeout);
    }

    public virtual async Task DisposeAsync()
    {
        if (Cluster is not null)
            await Cluster.DisposeAsync();
        if (Server is not null)
            await Server.DisposeAsync();
    }
}
