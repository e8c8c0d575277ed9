using Tern.Client;

namespace Tern.Cli;

/// <summary>
/// What a command runs with: its arguments, the server, the output, and a lazily opened
/// connection to the server's default collection (closed when the context is disposed).
/// </summary>
public sealed class CommandContext(CliArguments args, ServerAddress server, Stream output) : IAsyncDisposable
{
    private Cluster? _cluster;

    public CliArguments Args { get; } = args;

    public ServerAddress Server { get; } = server;

    /// <summary>Raw standard output: values are bytes and are written unchanged.</summary>
    public Stream Output { get; } = output;

    /// <summary>Per-operation timeout (`--timeout SECONDS`, default 2.5 s).</summary>
    public TimeSpan Timeout => Args.SecondsOption("timeout", 2.5);

    public async Task<Collection> ConnectAsync()
    {
        var options = new ClusterOptions
        {
            KvTimeout = Timeout,
            ConnectTimeout = Timeout,
            MaxConnectionsPerNode = 1,
        };
        _cluster ??= await Cluster.ConnectAsync($"tern://{Server}", options).ConfigureAwait(false);
        return _cluster.Bucket("default").DefaultCollection();
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
