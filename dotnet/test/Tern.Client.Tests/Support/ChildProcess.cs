using System.Diagnostics;
using System.Text.Json.Nodes;
using System.Threading.Channels;

namespace Tern.Client.Tests.Support;

/// <summary>
/// Another client in a process of its own, talked to by lines: a script of the official Node.js
/// SDK (compat/lib, its npm packages installed by scripts/test-dotnet.sh) or the
/// Tern.TransactionDriver. Standard output arrives line by line; standard error is kept for
/// failure messages. Disposing kills it (SIGKILL) if it still runs.
/// </summary>
public sealed class ChildProcess : IAsyncDisposable
{
    // Generous for a busy two-core machine: the bounds only turn hangs into failures.
    public static readonly TimeSpan LineTimeout = TimeSpan.FromSeconds(90);

    private readonly Process _process;
    private readonly Channel<string> _lines = Channel.CreateUnbounded<string>();
    private readonly List<string> _output = [];

    private ChildProcess(Process process)
    {
        _process = process;
        process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is null)
            {
                _lines.Writer.TryComplete();
                return;
            }
            Remember(e.Data);
            _lines.Writer.TryWrite(e.Data);
        };
        process.ErrorDataReceived += (_, e) =>
        {
            if (e.Data is not null)
                Remember("stderr: " + e.Data);
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
    }

    /// <summary>Everything it printed so far, for failure messages.</summary>
    public string Output
    {
        get
        {
            lock (_output)
                return string.Join('\n', _output);
        }
    }

    public bool HasExited => _process.HasExited;

    /// <summary>Runs <c>node compat/lib/<paramref name="script"/> args</c>.</summary>
    public static ChildProcess Node(string script, params string[] args) =>
        Start("node", [Path.Combine(TestData.RepositoryRoot, "compat", "lib", script), .. args]);

    /// <summary>Runs the Tern.TransactionDriver (built beside the tests, in the same configuration).</summary>
    public static ChildProcess TransactionDriver(params string[] args)
    {
        // bin/<configuration>/net10.0 of the tests: the driver's build has the same shape.
        var framework = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar));
        var driver = Path.Combine(TestData.RepositoryRoot, "dotnet", "test", "Tern.TransactionDriver", "bin", framework.Parent!.Name,
            framework.Name, "Tern.TransactionDriver.dll");
        if (!File.Exists(driver))
            throw new FileNotFoundException($"the transaction driver is not built at {driver} (dotnet build dotnet/Tern.sln)");
        return Start("dotnet", [driver, .. args]);
    }

    /// <summary>The next line it prints; fails when it exits or stays silent for <see cref="LineTimeout"/>.</summary>
    public async Task<string> ReadLineAsync()
    {
        try
        {
            return await _lines.Reader.ReadAsync().AsTask().WaitAsync(LineTimeout);
        }
        catch (Exception error) when (error is ChannelClosedException or TimeoutException)
        {
            throw new Xunit.Sdk.XunitException($"no line from {_process.StartInfo.FileName} {_process.StartInfo.Arguments}: {error.Message}\n{Output}");
        }
    }

    /// <summary>Reads lines until one equals <paramref name="expected"/>.</summary>
    public async Task ExpectLineAsync(string expected)
    {
        while (await ReadLineAsync() != expected)
        {
        }
    }

    /// <summary>The next line, parsed as JSON.</summary>
    public async Task<JsonObject> ReadJsonAsync() => JsonNode.Parse(await ReadLineAsync())!.AsObject();

    public async Task WriteLineAsync(string line)
    {
        await _process.StandardInput.WriteLineAsync(line);
        await _process.StandardInput.FlushAsync();
    }

    /// <summary>Waits for it to exit and returns its exit code.</summary>
    public async Task<int> WaitForExitAsync()
    {
        try
        {
            await _process.WaitForExitAsync().WaitAsync(LineTimeout);
        }
        catch (TimeoutException)
        {
            throw new Xunit.Sdk.XunitException($"{_process.StartInfo.FileName} {_process.StartInfo.Arguments} did not exit\n{Output}");
        }
        return _process.ExitCode;
    }

    /// <summary>SIGKILL, and waits until it is gone.</summary>
    public async Task KillAsync()
    {
        if (!_process.HasExited)
            _process.Kill(); // one signal, at once: a tree walk would give a dying client time to finish its commit
        await _process.WaitForExitAsync();
    }

    public async ValueTask DisposeAsync()
    {
        await KillAsync();
        _process.Dispose();
    }

    private static ChildProcess Start(string file, string[] args)
    {
        var start = new ProcessStartInfo(file)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var arg in args)
            start.ArgumentList.Add(arg);
        return new ChildProcess(Process.Start(start) ?? throw new InvalidOperationException($"{file} did not start"));
    }

    private void Remember(string line)
    {
        lock (_output)
            _output.Add(line);
    }
}
