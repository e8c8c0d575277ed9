using System.Net;
using System.Net.Sockets;

namespace Tern.Cli.Tests;

/// <summary>Mistakes a person makes on the command line, and a server that is not there.</summary>
public sealed class CommandLineTests
{
    [Theory]
    [InlineData("frob", "unknown command 'frob'")]
    [InlineData("get", "get: missing KEY")]
    [InlineData("touch k soon", "SECONDS must be a non-negative whole number")]
    [InlineData("get k extra", "unexpected argument 'extra'")]
    [InlineData("get k --server localhost:http", "port must be a number")]
    [InlineData("incr k --by", "option --by needs a value")]
    [InlineData("set k v --expirey 10", "unknown option --expirey")]
    [InlineData("get k --timeout 1e300", "--timeout expects a positive number of seconds")]
    [InlineData("set k v --expiry Infinity", "--expiry expects a positive number of seconds")]
    public async Task UsageErrorsExitWith2AndSayWhatIsWrong(string commandLine, string expected)
    {
        var run = await CliRun.RunAsync(commandLine.Split(' '));

        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains(expected, run.Error);
        Assert.Equal("", run.Output);
    }

    [Theory]
    [InlineData("get", "")]
    [InlineData("set", "", "v")]
    [InlineData("rm", "")]
    [InlineData("incr", "")]
    [InlineData("touch", "", "60")]
    public async Task AnEmptyKeyIsAUsageErrorWithoutContactingTheServer(params string[] args)
    {
        // The server's port refuses connections: reaching it would exit 3, not 2.
        using var refusing = RefusingPort(out var port);

        var run = await CliRun.RunAsync([.. args, "--server", $"127.0.0.1:{port}"]);

        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Equal("tern: document key must not be empty", run.Error);
    }

    [Fact]
    public async Task HelpListsTheCommandsAndSucceeds()
    {
        var run = await CliRun.RunAsync("--help");

        Assert.Equal(ExitCodes.Success, run.ExitCode);
        Assert.Contains("get KEY", run.Output);
        Assert.Contains("--server HOST:PORT", run.Output);
        Assert.Contains("(default 127.0.0.1:11210, or $TERN_SERVER)", run.Output); // ternd's port, pinned literally
    }

    [Fact]
    public async Task NoServerExitsWith3AndSuggestsStartingTernd()
    {
        using var refusing = RefusingPort(out var port);

        var run = await CliRun.RunAsync("get", "k", "--server", $"127.0.0.1:{port}");

        Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
        Assert.Equal($"tern: cannot connect to 127.0.0.1:{port}: connection refused — is ternd running? (make run)", run.Error);
    }

    /// <summary>A bound socket that never listens keeps its port reserved and refuses connections.</summary>
    internal static Socket RefusingPort(out int port)
    {
        var reserved = new Socket(SocketType.Stream, ProtocolType.Tcp);
        reserved.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        port = ((IPEndPoint)reserved.LocalEndPoint!).Port;
        return reserved;
    }

    [Fact]
    public async Task AServerThatNeverAcceptsExitsWith3SayingTheConnectTimedOut()
    {
        // A listener whose accept queue is full: the kernel drops further connection attempts unanswered.
        using var listener = new Socket(SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        var endpoint = (IPEndPoint)listener.LocalEndPoint!;
        var fillers = Enumerable.Range(0, 4).Select(_ => new Socket(SocketType.Stream, ProtocolType.Tcp)).ToArray();
        try
        {
            foreach (var filler in fillers)
                _ = filler.ConnectAsync(endpoint);

            var run = await CliRun.RunAsync("get", "k", "--server", $"127.0.0.1:{endpoint.Port}", "--timeout", "0.5");

            Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
            Assert.StartsWith($"tern: cannot connect to 127.0.0.1:{endpoint.Port}: ", run.Error);
            Assert.Contains("500 ms", run.Error);
        }
        finally
        {
            foreach (var filler in fillers)
                filler.Dispose();
        }
    }
}
