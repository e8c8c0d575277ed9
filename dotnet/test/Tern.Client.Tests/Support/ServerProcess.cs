using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

namespace Tern.Client.Tests.Support;

/// <summary>
/// A real server process (memcached or ternd) on a free port, for integration and fault tests.
/// Can be paused (SIGSTOP), resumed, killed and restarted on the same port.
/// A ternd started with a config gets a fresh temporary data directory (its couchbase buckets'
/// files), kept across <see cref="RestartAsync"/> and removed by <see cref="DisposeAsync"/>.
/// A ternd started with <c>holdableFsync</c> runs under hold_fsync (server/test/tools): between
/// <see cref="HoldFsync"/> and <see cref="ReleaseFsync"/> none of its fsyncs returns, so it
/// persists nothing. A ternd started with <see cref="TerndTls"/> serves TLS too, on
/// <see cref="TlsPort"/> (KV) and, with a management port, <see cref="ManagementTlsPort"/>.
/// </summary>
public sealed partial class ServerProcess : IAsyncDisposable
{
    private const int SigStop = 19;
    private const int SigCont = 18;
    // As the C++ harness and compat allow: a busy 2-core machine may start a process slowly.
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(30);

    private readonly string _kind;
    private readonly string? _config;
    private readonly string? _dataDirectory;
    private readonly string? _holdFile;
    private readonly string _managementPort;
    private readonly TerndTls? _tls;
    private readonly List<string> _log;
    private Process _process;

    private ServerProcess(string kind, Process process, int port, string? config = null, string? dataDirectory = null,
        string? holdFile = null, string managementPort = "none", int? boundManagementPort = null, TerndTls? tls = null,
        TerndPorts? tlsPorts = null, List<string>? log = null)
    {
        _log = log ?? [];
        _tls = tls;
        TlsPort = tlsPorts?.Kv;
        ManagementTlsPort = tlsPorts?.Management;
        _kind = kind;
        _process = process;
        Port = port;
        _config = config;
        _dataDirectory = dataDirectory;
        _holdFile = holdFile;
        _managementPort = managementPort;
        ManagementPort = boundManagementPort;
    }

    public int Port { get; }

    /// <summary>ternd's management (HTTP) port as it logged it; null when it has none.</summary>
    public int? ManagementPort { get; private set; }

    /// <summary>ternd's KV TLS port as it logged it; null without <see cref="TerndTls"/>.</summary>
    public int? TlsPort { get; private set; }

    /// <summary>ternd's management TLS (HTTPS) port as it logged it; null without TLS or a management port.</summary>
    public int? ManagementTlsPort { get; private set; }

    /// <summary>couchbases:// to the TLS port, by <paramref name="host"/> (which must reach 127.0.0.1).</summary>
    public string TlsConnectionString(string host = "127.0.0.1") =>
        $"couchbases://{host}:{TlsPort ?? throw new InvalidOperationException("ternd was started without TLS")}";

    /// <summary>What ternd has written to its standard output and error so far.</summary>
    public IReadOnlyList<string> Log
    {
        get
        {
            lock (_log)
                return [.. _log];
        }
    }

    public string ConnectionString => $"memcached://127.0.0.1:{Port}";

    /// <summary>The same server for a Couchbase SDK: meaningful for ternd started with a config that has users.</summary>
    public string CouchbaseConnectionString => $"couchbase://127.0.0.1:{Port}";

    /// <summary>server/config/dev.toml: bucket "default" with scope app (users, orders), user Administrator / password.</summary>
    public static string DevConfigPath => Path.Combine(TestData.RepositoryRoot, "server", "config", "dev.toml");

    public bool IsTernd => _kind == "ternd";

    /// <summary>Where ternd is: $TERND_PATH, else build/release/server/ternd in the repository.</summary>
    public static string TerndPath =>
        Environment.GetEnvironmentVariable("TERND_PATH") is { Length: > 0 } path
            ? path
            : Path.Combine(TestData.RepositoryRoot, "build", "release", "server", "ternd");

    /// <summary>Where hold_fsync is: $HOLD_FSYNC_PATH, else build/release/server/hold_fsync in the repository.</summary>
    public static string HoldFsyncPath =>
        Environment.GetEnvironmentVariable("HOLD_FSYNC_PATH") is { Length: > 0 } path
            ? path
            : Path.Combine(TestData.RepositoryRoot, "build", "release", "server", "hold_fsync");

    public static async Task<ServerProcess> StartMemcachedAsync()
    {
        for (var attempt = 0; ; attempt++)
        {
            var port = FreePort();
            var process = StartMemcached(port);
            if (await WaitUntilListeningAsync(process, port))
                return new ServerProcess("memcached", process, port);
            Stop(process);
            if (attempt == 3)
                throw new InvalidOperationException($"memcached did not start listening on port {port}");
        }
    }

    /// <summary>
    /// ternd on a free port; with <paramref name="configPath"/> it reads that TOML file (buckets, users),
    /// whose port and listen address the command line overrides. With <paramref name="holdableFsync"/>
    /// it runs under hold_fsync, its fsyncs free until <see cref="HoldFsync"/>. Its management port is
    /// <paramref name="managementPort"/> (--mgmt-port): by default a free one, never the shared 8091.
    /// </summary>
    public static async Task<ServerProcess> StartTerndAsync(string? configPath = null, bool holdableFsync = false,
        string managementPort = "0", TerndTls? tls = null)
    {
        if (!File.Exists(TerndPath))
            throw new FileNotFoundException($"ternd is not built at {TerndPath} (run make build-server, or set TERND_PATH)");
        if (holdableFsync && !File.Exists(HoldFsyncPath))
            throw new FileNotFoundException($"hold_fsync is not built at {HoldFsyncPath} (build the hold_fsync target, or set HOLD_FSYNC_PATH)");
        // Without a config ternd serves an ephemeral bucket and refuses --data-dir.
        var dataDirectory = configPath is null ? null : System.IO.Directory.CreateTempSubdirectory("tern-dotnet-data-").FullName;
        // Absent until HoldFsync: ternd starts (and warms up, which syncs too) unhindered.
        var holdFile = holdableFsync ? Path.Combine(Path.GetTempPath(), $"tern-dotnet-hold-fsync-{Guid.NewGuid():N}") : null;
        try
        {
            var log = new List<string>();
            var (process, port, mgmt, tlsPorts) =
                await StartTerndProcessAsync(0, configPath, dataDirectory, holdFile, managementPort, tls, null, log);
            return new ServerProcess("ternd", process, port, configPath, dataDirectory, holdFile, managementPort, mgmt, tls, tlsPorts, log);
        }
        catch
        {
            RemoveDataDirectory(dataDirectory);
            throw;
        }
    }

    /// <summary>From now until <see cref="ReleaseFsync"/>, every fsync of a ternd started with holdableFsync waits.</summary>
    public void HoldFsync() =>
        File.WriteAllBytes(_holdFile ?? throw new InvalidOperationException("ternd was not started with holdableFsync"), []);

    /// <summary>Held fsyncs complete, and later ones no longer wait.</summary>
    public void ReleaseFsync()
    {
        if (_holdFile is not null)
            File.Delete(_holdFile);
    }

    /// <summary>SIGSTOP: the process keeps its socket but stops answering. Returns once every thread has stopped.</summary>
    public void Pause()
    {
        Signal(SigStop);
        var watch = Stopwatch.StartNew();
        while (!AllThreadsStopped())
        {
            if (watch.Elapsed > StartTimeout)
                throw new InvalidOperationException($"{_kind} (pid {_process.Id}) did not stop after SIGSTOP");
            Thread.Sleep(1);
        }
    }

    private bool AllThreadsStopped()
    {
        foreach (var task in System.IO.Directory.GetDirectories($"/proc/{_process.Id}/task"))
        {
            // The state follows the parenthesised command name in /proc/<pid>/task/<tid>/stat.
            var stat = File.ReadAllText(Path.Combine(task, "stat"));
            if (stat[stat.LastIndexOf(')') + 2] != 'T')
                return false;
        }
        return true;
    }

    /// <summary>SIGCONT after <see cref="Pause"/>.</summary>
    public void Resume() => Signal(SigCont);

    /// <summary>SIGKILL; works on a paused process too. The kernel then closes its connections.</summary>
    public void Kill() => Stop(_process);

    /// <summary>Starts the server again on the same port after <see cref="Kill"/>.</summary>
    public async Task RestartAsync()
    {
        if (IsTernd)
        {
            int? mgmt;
            TerndPorts? tlsPorts;
            (_process, _, mgmt, tlsPorts) = await StartTerndProcessAsync(Port, _config, _dataDirectory, _holdFile, _managementPort, _tls,
                TlsPort is { } tlsPort ? new TerndPorts(tlsPort, ManagementTlsPort) : null, _log);
            ManagementPort = mgmt;
            (TlsPort, ManagementTlsPort) = (tlsPorts?.Kv, tlsPorts?.Management);
            return;
        }
        _process = StartMemcached(Port);
        if (!await WaitUntilListeningAsync(_process, Port))
            throw new InvalidOperationException($"memcached did not restart on port {Port}");
    }

    public ValueTask DisposeAsync()
    {
        // The server is killed (SIGKILL), not stopped: the hold goes with it, and the file too.
        ReleaseFsync();
        Signal(SigCont);
        Stop(_process);
        RemoveDataDirectory(_dataDirectory);
        return ValueTask.CompletedTask;
    }

    private static void RemoveDataDirectory(string? directory)
    {
        if (directory is not null && System.IO.Directory.Exists(directory))
            System.IO.Directory.Delete(directory, recursive: true);
    }

    private void Signal(int signal)
    {
        if (!_process.HasExited && kill(_process.Id, signal) != 0)
            throw new InvalidOperationException($"kill({_process.Id}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}");
    }

    private static Process StartMemcached(int port)
    {
        var start = new ProcessStartInfo("memcached")
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
        };
        foreach (var arg in new[] { "-B", "binary", "-p", port.ToString(), "-U", "0", "-l", "127.0.0.1", "-t", "2" })
            start.ArgumentList.Add(arg);
        if (Environment.UserName == "root")
        {
            start.ArgumentList.Add("-u");
            start.ArgumentList.Add("root");
        }
        var process = Process.Start(start)!;
        process.BeginErrorReadLine();
        process.BeginOutputReadLine();
        return process;
    }

    /// <summary>
    /// Starts ternd and waits until it listens; every line it writes goes on into <paramref name="log"/>.
    /// With <paramref name="tls"/> it serves TLS on <paramref name="tlsPorts"/> (free ones when null).
    /// </summary>
    private static async Task<(Process, int, int?, TerndPorts?)> StartTerndProcessAsync(int port, string? configPath, string? dataDirectory,
        string? holdFile, string managementPort, TerndTls? tls, TerndPorts? tlsPorts, List<string> log)
    {
        // hold_fsync execs ternd in its own process: the PID, streams and exit status stay ternd's.
        var start = new ProcessStartInfo(holdFile is null ? TerndPath : HoldFsyncPath)
        {
            RedirectStandardError = true,
            RedirectStandardOutput = true,
        };
        if (holdFile is not null)
        {
            start.ArgumentList.Add(holdFile);
            start.ArgumentList.Add(TerndPath);
        }
        if (configPath is not null)
        {
            start.ArgumentList.Add("--config");
            start.ArgumentList.Add(configPath);
        }
        if (dataDirectory is not null)
        {
            start.ArgumentList.Add("--data-dir");
            start.ArgumentList.Add(dataDirectory);
        }
        foreach (var arg in new[] { "--port", port.ToString(), "--listen", "127.0.0.1", "--threads", "2", "--mgmt-port", managementPort })
            start.ArgumentList.Add(arg);
        var managementTls = tls is not null && managementPort != "none";
        if (tls is not null)
        {
            start.ArgumentList.Add("--tls-port");
            start.ArgumentList.Add((tlsPorts?.Kv ?? 0).ToString());
            start.ArgumentList.Add("--mgmt-tls-port");
            start.ArgumentList.Add(managementTls ? (tlsPorts?.Management ?? 0).ToString() : "none");
            foreach (var (flag, value) in new[] { ("--tls-certificate", tls.Certificate), ("--tls-private-key", tls.PrivateKey),
                         ("--tls-client-ca", tls.ClientCa), ("--tls-client-auth", tls.ClientAuth) })
            {
                if (value is null)
                    continue;
                start.ArgumentList.Add(flag);
                start.ArgumentList.Add(value);
            }
        }
        var listening = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        int? boundManagementPort = null;
        int? boundTlsPort = null;
        int? boundManagementTlsPort = null;
        var process = new Process { StartInfo = start };
        var boundPort = 0;
        var ready = false;
        DataReceivedEventHandler onLine = (_, e) =>
        {
            if (e.Data is null)
                return;
            lock (log)
            {
                log.Add(e.Data);
                boundPort = PortIn(ListeningLine(), e.Data) ?? boundPort;
                boundManagementPort = PortIn(ManagementListeningLine(), e.Data) ?? boundManagementPort;
                boundTlsPort = PortIn(TlsListeningLine(), e.Data) ?? boundTlsPort;
                boundManagementTlsPort = PortIn(ManagementTlsListeningLine(), e.Data) ?? boundManagementTlsPort;
                // A persistent bucket answers Etmpfail until warm: wait for ternd to say so too.
                if (e.Data.Contains("ternd ready"))
                    ready = true;
                // The management port may be logged after "ternd ready": wait for it too when it was asked for.
                if (boundPort != 0 && ready && (managementPort == "none" || boundManagementPort is not null)
                    && (tls is null || boundTlsPort is not null) && (!managementTls || boundManagementTlsPort is not null))
                    listening.TrySetResult(boundPort);
            }
        };
        process.ErrorDataReceived += onLine;
        process.OutputDataReceived += onLine;
        process.Start();
        process.BeginErrorReadLine();
        process.BeginOutputReadLine();
        try
        {
            var bound = await listening.Task.WaitAsync(StartTimeout);
            lock (log)
                return (process, bound, boundManagementPort, boundTlsPort is { } kv ? new TerndPorts(kv, boundManagementTlsPort) : null);
        }
        catch (System.TimeoutException)
        {
            Stop(process);
            lock (log)
                throw new InvalidOperationException(
                    $"ternd did not report 'listening on', 'ternd ready' (and its management and TLS ports): {string.Join("\n", log)}");
        }
    }

    /// <summary>The port a "... listening on HOST:PORT" line of <paramref name="pattern"/> names, or null for another line.</summary>
    private static int? PortIn(Regex pattern, string line) =>
        pattern.Match(line) is { Success: true } match ? int.Parse(match.Groups[1].Value) : null;

    private static async Task<bool> WaitUntilListeningAsync(Process process, int port)
    {
        var watch = Stopwatch.StartNew();
        while (watch.Elapsed < StartTimeout && !process.HasExited)
        {
            using var probe = new Socket(SocketType.Stream, ProtocolType.Tcp);
            try
            {
                await probe.ConnectAsync(IPAddress.Loopback, port);
                return true;
            }
            catch (SocketException)
            {
                await Task.Delay(10);
            }
        }
        return false;
    }

    /// <summary>A port nothing listens on at the moment (another process may take it later).</summary>
    internal static int FreePort()
    {
        var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var port = ((IPEndPoint)listener.LocalEndpoint).Port;
        listener.Stop();
        return port;
    }

    private static void Stop(Process process)
    {
        if (!process.HasExited)
        {
            process.Kill();
            process.WaitForExit();
        }
    }

    // The KV port's line ("ternd 1.2.3 listening on 127.0.0.1:11210 with ..."), not the management port's.
    [GeneratedRegex(@"ternd \S+ listening on \S*:(\d+)")]
    private static partial Regex ListeningLine();

    [GeneratedRegex(@"management port listening on \S*:(\d+)")]
    private static partial Regex ManagementListeningLine();

    [GeneratedRegex(@"(?<!management )TLS listening on \S*:(\d+)")]
    private static partial Regex TlsListeningLine();

    [GeneratedRegex(@"management TLS port listening on \S*:(\d+)")]
    private static partial Regex ManagementTlsListeningLine();

    [DllImport("libc", SetLastError = true)]
    private static extern int kill(int pid, int signal);
}

/// <summary>The TLS ports ternd logged: KV, and management (null when it has none).</summary>
public sealed record TerndPorts(int Kv, int? Management);
