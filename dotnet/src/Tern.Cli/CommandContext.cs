using Tern.Client;

namespace Tern.Cli;

/// <summary>
/// What a command runs with: its arguments, the target (server, credentials, bucket, collection),
/// the output, and a lazily opened connection to the target's collection (closed when the context
/// is disposed).
/// </summary>
public sealed class CommandContext(CliArguments args, Target target, Stream output) : IAsyncDisposable
{
    private Cluster? _cluster;
    private Collection? _collection;

    public CliArguments Args { get; } = args;

    public Target Target { get; } = target;

    public ServerAddress Server => Target.Server;

    /// <summary>Raw standard output: values are bytes and are written unchanged.</summary>
    public Stream Output { get; } = output;

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
        var options = new ClusterOptions
        {
            KvTimeout = Timeout,
            ConnectTimeout = Timeout,
            MaxConnectionsPerNode = 1,
            UserName = Target.User,
            Password = Target.Password,
        };
        _cluster ??= await Cluster.ConnectAsync(Server.ConnectionString, options).ConfigureAwait(false);
        var bucket = await _cluster.BucketAsync(Target.Bucket).ConfigureAwait(false);
        return _collection = bucket.Scope(Target.Scope).Collection(Target.Collection);
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
