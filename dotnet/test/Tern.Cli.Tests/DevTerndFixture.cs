using System.Diagnostics;
using System.Text.RegularExpressions;
using Tern.Client.Tests.Support;

namespace Tern.Cli.Tests;

/// <summary>
/// A real ternd started once for the class from server/config/dev.toml, on a free port: bucket
/// `default` with scope `app` (collections `users` and `orders`), user Administrator / password,
/// and `default` also open to anonymous tern:// clients.
/// </summary>
public sealed partial class DevTerndFixture : IAsyncLifetime
{
    public const string User = "Administrator";
    public const string Password = "password";

    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(10);

    private readonly List<string> _log = [];
    private Process? _process;

    public int Port { get; private set; }

    /// <summary>`host:port`, for tern://.</summary>
    public string Address => $"127.0.0.1:{Port}";

    public string CouchbaseUrl => $"couchbase://127.0.0.1:{Port}";

    public async Task InitializeAsync()
    {
        var path = ServerProcess.TerndPath;
        if (!File.Exists(path))
            throw new FileNotFoundException($"ternd is not built at {path} (run make build-server, or set TERND_PATH)");
        var start = new ProcessStartInfo(path) { RedirectStandardError = true, RedirectStandardOutput = true };
        var config = Path.Combine(TestData.RepositoryRoot, "server", "config", "dev.toml");
        foreach (var arg in new[] { "--config", config, "--port", "0", "--listen", "127.0.0.1", "--threads", "2" })
            start.ArgumentList.Add(arg);
        var listening = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        _process = new Process { StartInfo = start };
        DataReceivedEventHandler onLine = (_, e) =>
        {
            if (e.Data is null)
                return;
            lock (_log)
                _log.Add(e.Data);
            if (ListeningLine().Match(e.Data) is { Success: true } match)
                listening.TrySetResult(int.Parse(match.Groups[1].Value));
        };
        _process.ErrorDataReceived += onLine;
        _process.OutputDataReceived += onLine;
        _process.Start();
        _process.BeginErrorReadLine();
        _process.BeginOutputReadLine();
        try
        {
            Port = await listening.Task.WaitAsync(StartTimeout);
        }
        catch (TimeoutException)
        {
            await DisposeAsync();
            lock (_log)
                throw new InvalidOperationException($"ternd --config {config} did not report 'listening on': {string.Join("\n", _log)}");
        }
    }

    public Task DisposeAsync()
    {
        if (_process is { HasExited: false })
        {
            _process.Kill();
            _process.WaitForExit();
        }
        _process?.Dispose();
        return Task.CompletedTask;
    }

    [GeneratedRegex(@"listening on \S*:(\d+)")]
    private static partial Regex ListeningLine();
}
