using Tern.Client;

namespace Tern.Cli;

/// <summary>
/// What a command runs with: its arguments, the target (server, credentials, bucket, collection),
/// the output, and a lazily opened connection to the target's collection (closed when the context
/// is disposed).
/// </summary>
public sealed class CommandContext(CliArguments args, Target target, Stream output, TextWriter? error = null) : IAsyncDisposable
{
    private Cluster? _cluster;
    private Collection? _collection;

    public CliArguments Args { get; } = args;

    public Target Target { get; } = target;

    public ServerAddress Server => Target.Server;

    /// <summary>Raw standard output: values are bytes and are written unchanged.</summary>
    public Stream Output { get; } = output;

    /// <summary>Standard error: warnings, progress and per-item reports, kept apart from a command's output.</summary>
    public TextWriter Error { get; } = error ?? Console.Error;

    /// <summary>Per-operation timeout (`--timeout SECONDS`, default 2.5 s).</summary>
    public TimeSpan Timeout => Args.SecondsOption("timeout", 2.5);

    /// <summary>
    /// Connects (authenticating over couchbase://) and opens the bucket, so wrong credentials and an
    /// unknown bucket fail here; an unknown collection fails on its first operation.
    /// </summary>
    public async Task<Collection> ConnectAsync()
    {
        if (_collection is not null)
            return _collection;
        var cluster = await ConnectClusterAsync().ConfigureAwait(false);
        var bucket = await cluster.BucketAsync(Target.Bucket).ConfigureAwait(false);
        return _collection = bucket.Scope(Target.Scope).Collection(Target.Collection);
    }

    /// <summary>
    /// Connects for a management command (couchbase:// only) and starts opening the target's
    /// bucket: the management port is found in a cluster map, and a server that gives no map
    /// without a bucket (ternd) gives that bucket's. Manager calls wait up to `--timeout`, else
    /// the SDK's management timeout: creating, flushing or dropping a bucket can take a while.
    /// </summary>
    public async Task<Bucket> ConnectForManagementAsync(string what)
    {
        if (!Server.IsCouchbase)
            throw new UsageException($"{what} needs a couchbase:// server (the management port); {Server.Scheme}:// has none");
        var cluster = await ConnectClusterAsync().ConfigureAwait(false);
        return cluster.Bucket(Target.Bucket);
    }

    /// <summary>The cluster handle, connected on first use (authenticating over couchbase://).</summary>
    public async Task<Cluster> ConnectClusterAsync()
    {
        var options = new ClusterOptions
        {
            KvTimeout = Timeout,
            ConnectTimeout = Timeout,
            ManagementTimeout = Args.Option("timeout") is null ? new ClusterOptions().ManagementTimeout : Timeout,
            MaxConnectionsPerNode = 1,
            UserName = Target.User,
            Password = Target.Password,
        };
        if (Target.Tls is { } tls)
            options = tls.ApplyTo(options);
        return _cluster ??= await Cluster.ConnectAsync(Server.ConnectionString, options).ConfigureAwait(false);
    }

    public void WriteLine(string text)
    {
        var bytes = System.Text.Encoding.UTF8.GetBytes(text + "\n");
        Output.Write(bytes);
    }

    public async ValueTask DisposeAsync()
    {
        if (_cluster is not null)
            await _cluster.DisposeAsync().ConfigureAwait(false);
        await Output.FlushAsync().ConfigureAwait(false);
    }
}
