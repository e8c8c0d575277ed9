using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.RegularExpressions;

namespace Tern.Client.Tests.Support;

/// <summary>
/// A local N-node ternd cluster from scripts/cluster.sh (each node owns a contiguous share of the
/// 1024 vbuckets; dev.toml's bucket and users), in its own temporary directory and on its own
/// ports, so that classes using one run in parallel with the rest of the suite. Vbuckets move
/// with scripts/cluster-admin.mjs; nodes can be paused (SIGSTOP) and resumed. Dispose runs
/// `cluster.sh down` (after resuming every node) and removes the directory: use it with
/// <c>await using</c> so that a failing test stops its processes too.
/// </summary>
public sealed partial class TerndCluster : IAsyncDisposable
{
    private const int SigStop = 19;
    private const int SigCont = 18;

    // Generous: starting N processes and setting 1024 vbucket states on each takes about a second,
    // far longer beside a parallel suite.
    private static readonly TimeSpan ScriptTimeout = TimeSpan.FromSeconds(120);

    private readonly string _directory;
    private bool _down;

    private TerndCluster(string directory, string connectionString, IReadOnlyList<int> ports, string output)
    {
        _directory = directory;
        ConnectionString = connectionString;
        Ports = ports;
        StartOutput = output;
    }

    /// <summary>"couchbase://127.0.0.1:P1,127.0.0.1:P2,...", as cluster.sh printed it.</summary>
    public string ConnectionString { get; }

    /// <summary>Node i's data port.</summary>
    public IReadOnlyList<int> Ports { get; }

    public string StartOutput { get; }

    public string Endpoint(int node) => $"127.0.0.1:{Ports[node]}";

    public int ProcessId(int node) => int.Parse(File.ReadAllText(Path.Combine(_directory, $"node{node}.pid")).Trim());

    /// <summary>Starts <paramref name="nodes"/> ternd processes from a random base port in 20000-50000 and installs the even map.</summary>
    public static async Task<TerndCluster> StartAsync(int nodes)
    {
        var directory = Path.Combine(Path.GetTempPath(), $"tern-cluster-{Guid.NewGuid():N}");
        System.IO.Directory.CreateDirectory(directory);
        var basePort = Random.Shared.Next(20000, 50000 - 100);
        var environment = new Dictionary<string, string>
        {
            ["CLUSTER_DIR"] = directory,
            ["BASE_PORT"] = basePort.ToString(),
            ["TERND"] = ServerProcess.TerndPath,
        };
        var (code, output) = await RunAsync("bash", [Path.Combine("scripts", "cluster.sh"), "up", nodes.ToString()], environment);
        try
        {
            if (code != 0)
                throw new InvalidOperationException($"cluster.sh up {nodes} exited with {code}:\n{output}\n{NodeLogs(directory)}");
            var connectionString = ConnectionLine().Match(output) is { Success: true } match
                ? match.Groups[1].Value
                : throw new InvalidOperationException($"cluster.sh up printed no connection string:\n{output}");
            var ports = File.ReadAllText(Path.Combine(directory, "ports")).Split(' ', StringSplitOptions.RemoveEmptyEntries)
                .Select(int.Parse).ToArray();
            if (ports.Length != nodes)
                throw new InvalidOperationException($"cluster.sh up {nodes} wrote {ports.Length} ports:\n{output}");
            return new TerndCluster(directory, connectionString, ports, output);
        }
        catch
        {
            await DownAsync(directory);
            throw;
        }
    }

    /// <summary>Moves <paramref name="vbuckets"/> ("0-340") to node <paramref name="to"/> and installs the new map on every node; returns its rev.</summary>
    public async Task<long> MoveAsync(string vbuckets, int to)
    {
        var output = await AdminAsync("move", "--ports", string.Join(",", Ports), "--vbuckets", vbuckets, "--to", to.ToString());
        return MovedLine().Match(output) is { Success: true } match
            ? long.Parse(match.Groups[1].Value)
            : throw new InvalidOperationException($"cluster-admin move printed no rev: {output}");
    }

    /// <summary>cluster-admin.mjs's own vbucket of each key (the scripts' CRC-32), to check <see cref="VBuckets.Of"/> against.</summary>
    public static async Task<IReadOnlyDictionary<string, int>> ScriptVBucketsAsync(IEnumerable<string> keys)
    {
        var output = await AdminAsync(["vbucket", .. keys]);
        return output.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(line => line.Split(' '))
            .ToDictionary(parts => parts[0], parts => int.Parse(parts[1]));
    }

    /// <summary>
    /// cluster-admin.mjs's statistics of bucket "default" on the ternd at <paramref name="port"/>
    /// (one started from dev.toml's users, in a cluster or not), by name.
    /// </summary>
    public static async Task<IReadOnlyDictionary<string, string>> StatsAsync(int port)
    {
        var output = await AdminAsync("stats", "--port", port.ToString());
        return output.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Select(line => line.Split(' ', 2))
            .Where(parts => parts.Length == 2)
            .ToDictionary(parts => parts[0], parts => parts[1]);
    }

    /// <summary>SIGSTOP node <paramref name="node"/>: it keeps its sockets but answers nothing. Returns once every thread has stopped.</summary>
    public void Pause(int node)
    {
        var pid = ProcessId(node);
        Signal(pid, SigStop);
        var watch = Stopwatch.StartNew();
        while (!AllThreadsStopped(pid))
        {
            if (watch.Elapsed > TimeSpan.FromSeconds(10))
                throw new InvalidOperationException($"node {node} (pid {pid}) did not stop after SIGSTOP");
            Thread.Sleep(1);
        }
    }

    public void Resume(int node) => Signal(ProcessId(node), SigCont);

    /// <summary>The tail of every node's log, for a failure message.</summary>
    public string Logs() => NodeLogs(_directory);

    public async ValueTask DisposeAsync()
    {
        if (_down)
            return;
        _down = true;
        // A stopped process would hold SIGTERM pending and cost cluster.sh its 20 s grace period.
        for (var node = 0; node < Ports.Count; node++)
        {
            try
            {
                Resume(node);
            }
            catch (Exception e) when (e is IOException or InvalidOperationException or FormatException)
            {
            }
        }
        await DownAsync(_directory);
    }

    private static async Task DownAsync(string directory)
    {
        var (code, output) = await RunAsync("bash", [Path.Combine("scripts", "cluster.sh"), "down"],
            new Dictionary<string, string> { ["CLUSTER_DIR"] = directory });
        if (code != 0)
            throw new InvalidOperationException($"cluster.sh down exited with {code}:\n{output}");
        System.IO.Directory.Delete(directory, recursive: true);
    }

    private static async Task<string> AdminAsync(params string[] arguments)
    {
        var (code, output) = await RunAsync("node", [Path.Combine("scripts", "cluster-admin.mjs"), .. arguments],
            new Dictionary<string, string>());
        if (code != 0)
            throw new InvalidOperationException($"cluster-admin.mjs {string.Join(' ', arguments.Take(8))} exited with {code}:\n{output}");
        return output;
    }

    /// <summary>Runs a script from the repository root; returns its exit code and its output (stdout, then stderr).</summary>
    private static async Task<(int Code, string Output)> RunAsync(string program, IEnumerable<string> arguments,
        IReadOnlyDictionary<string, string> environment)
    {
        var start = new ProcessStartInfo(program)
        {
            WorkingDirectory = TestData.RepositoryRoot,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
        };
        foreach (var argument in arguments)
            start.ArgumentList.Add(argument);
        foreach (var (name, value) in environment)
            start.Environment[name] = value;
        using var process = Process.Start(start)!;
        process.StandardInput.Close();
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(ScriptTimeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new InvalidOperationException($"{program} {string.Join(' ', start.ArgumentList.Take(4))} did not finish within {ScriptTimeout}");
        }
        var output = new StringBuilder().Append(await stdout).Append(await stderr).ToString();
        return (process.ExitCode, output);
    }

    private static string NodeLogs(string directory)
    {
        if (!System.IO.Directory.Exists(directory))
            return "";
        var text = new StringBuilder();
        foreach (var log in System.IO.Directory.GetFiles(directory, "node*.log").Order())
        {
            var lines = File.ReadAllLines(log);
            text.AppendLine($"--- {Path.GetFileName(log)} (last 20 lines)");
            foreach (var line in lines.TakeLast(20))
                text.AppendLine(line);
        }
        return text.ToString();
    }

    private static bool AllThreadsStopped(int pid)
    {
        foreach (var task in System.IO.Directory.GetDirectories($"/proc/{pid}/task"))
        {
            // The state follows the parenthesised command name in /proc/<pid>/task/<tid>/stat.
            var stat = File.ReadAllText(Path.Combine(task, "stat"));
            if (stat[stat.LastIndexOf(')') + 2] != 'T')
                return false;
        }
        return true;
    }

    private static void Signal(int pid, int signal)
    {
        if (kill(pid, signal) != 0)
            throw new InvalidOperationException($"kill({pid}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}");
    }

    [GeneratedRegex(@"connection string: (couchbase://\S+)")]
    private static partial Regex ConnectionLine();

    [GeneratedRegex(@"moved to node \d+; map rev (\d+)")]
    private static partial Regex MovedLine();

    [DllImport("libc", SetLastError = true)]
    private static extern int kill(int pid, int signal);
}
