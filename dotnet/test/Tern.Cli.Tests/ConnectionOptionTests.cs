using System.Net;
using System.Net.Sockets;

namespace Tern.Cli.Tests;

/// <summary>
/// Tests that read or set $TERN_USER and $TERN_PASSWORD: process-wide, so they run alone, after
/// the parallel tests.
/// </summary>
[CollectionDefinition(nameof(TernEnvironment), DisableParallelization = true)]
public sealed class TernEnvironment;

/// <summary>--server's connection strings, -u/-p, --bucket and --collection: what the CLI accepts and what it refuses before connecting.</summary>
[Collection(nameof(TernEnvironment))]
public sealed class ConnectionOptionTests
{
    [Theory]
    [InlineData("get k --server couchbase://127.0.0.1",
        "couchbase://127.0.0.1:11210 needs credentials: give -u USER and -p PASSWORD (or set $TERN_USER and $TERN_PASSWORD)")]
    [InlineData("get k --server couchbase://127.0.0.1:9000 -u Administrator",
        "couchbase://127.0.0.1:9000 needs the password of user 'Administrator': give -p PASSWORD or set $TERN_PASSWORD")]
    [InlineData("get k --server COUCHBASE://h --password p", "needs credentials")]
    [InlineData("get k -u Administrator -p password",
        "-u/--user and -p/--password need a couchbase:// server; tern:// does not authenticate")]
    [InlineData("get k --server memcached://127.0.0.1 --password p",
        "-u/--user and -p/--password need a couchbase:// server; memcached:// does not authenticate")]
    [InlineData("get k --server tern://127.0.0.1 --user u", "tern:// does not authenticate")]
    [InlineData("get k --bucket travel", "--bucket 'travel' needs a couchbase:// server; tern:// has only bucket 'default'")]
    [InlineData("get k --collection app.users",
        "--collection 'app.users' needs a couchbase:// server; tern:// has only the default collection")]
    [InlineData("get k --server memcached://h --collection _default.users", "--collection '_default.users' needs a couchbase:// server")]
    [InlineData("get k --bucket=", "--bucket needs a bucket name")]
    [InlineData("get k -u", "option -u needs a value")]
    [InlineData("get k -u a -p", "option -p needs a value")]
    [InlineData("get k --server couchbase://h -u a -p b --collection users",
        "--collection 'users': expected SCOPE.COLLECTION, e.g. app.users or _default._default")]
    [InlineData("get k --server couchbase://h -u a -p b --collection app.", "--collection 'app.': expected SCOPE.COLLECTION")]
    [InlineData("get k --server couchbase://h -u a -p b --collection .users", "--collection '.users': expected SCOPE.COLLECTION")]
    [InlineData("get k --server couchbase://h -u a -p b --collection a.b.c", "--collection 'a.b.c': expected SCOPE.COLLECTION")]
    [InlineData("get k --server couchbase://h -u a -p b --collection", "option --collection needs a value")]
    [InlineData("get k --server couchbases://h",
        "couchbases://h:11207 needs credentials: give -u USER and -p PASSWORD (or set $TERN_USER and $TERN_PASSWORD), " +
        "or a client certificate: --cert FILE --key FILE")]
    [InlineData("get k --server couchbase://h -u a -p b --cacert ca.pem", "--cacert need a couchbases:// server (TLS); couchbase:// is plain TCP")]
    [InlineData("get k --no-verify --cert c.pem", "--cert, --no-verify need a couchbases:// server (TLS); tern:// is plain TCP")]
    [InlineData("get k --server couchbases://h -u a -p b --key k.pem", "--key needs --cert")]
    [InlineData("get k --server couchbases://h -u a -p b --cacert ca.pem --no-verify", "--no-verify and --cacert contradict each other")]
    [InlineData("get k --server couchbases://h -u a --cert c.pem", "--cert logs in as the user the certificate names: drop -u/--user and -p/--password")]
    [InlineData("get k --server http://h", "scheme 'http' is not supported")]
    [InlineData("get k --server couchbase://h1,h2 -u a -p b", "--server 'couchbase://h1,h2': name one host")]
    [InlineData("get k --server couchbase://h:port -u a -p b", "bad port 'port'")]
    [InlineData("get k --server couchbase:// -u a -p b", "names no host")]
    public async Task UsageErrorsExitWith2AndSayWhatIsWrong(string commandLine, string expected)
    {
        using var _ = new TernVariables(user: null, password: null);

        var run = await CliRun.RunAsync(commandLine.Split(' '));

        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains(expected, run.Error);
        Assert.EndsWith(" (see `tern --help`)", run.Error);
        Assert.Equal("", run.Output);
    }

    [Theory]
    [InlineData("get", "k", "--bucket", "default", "--collection", "_default._default")]
    [InlineData("get", "k", "--server", "tern://127.0.0.1:{port}")]
    [InlineData("get", "k", "--server", "memcached://127.0.0.1:{port}")]
    [InlineData("get", "k", "--server", "couchbase://127.0.0.1:{port}", "-u", "Administrator", "-p", "password")]
    [InlineData("get", "k", "--server", "couchbase://127.0.0.1:{port}", "--user", "a", "--password", "b", "--bucket", "b",
        "--collection", "s.c")]
    [InlineData("stats", "--server", "couchbase://127.0.0.1:{port}", "-u", "a", "-p", "b")]
    public async Task AcceptedOptionsGoOnToConnect(params string[] args)
    {
        using var _ = new TernVariables(user: null, password: null);
        using var refusing = RefusingPort(out var port);
        string[] withServer = args.Contains("--server") ? args : [.. args, "--server", "127.0.0.1:{port}"];

        var run = await CliRun.RunAsync(withServer.Select(arg => arg.Replace("{port}", $"{port}")).ToArray());

        Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
        Assert.Equal($"tern: cannot connect to 127.0.0.1:{port}: connection refused — is ternd running? (make run)", run.Error);
    }

    [Fact]
    public async Task TheCredentialsMayComeFromTheEnvironment()
    {
        using var _ = new TernVariables(user: "Administrator", password: "password");
        using var refusing = RefusingPort(out var port);

        var run = await CliRun.RunAsync("get", "k", "--server", $"couchbase://127.0.0.1:{port}");

        Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
    }

    [Fact]
    public async Task ThePasswordMayComeFromTheEnvironmentAlone()
    {
        using var _ = new TernVariables(user: null, password: "password");
        using var refusing = RefusingPort(out var port);

        var withUser = await CliRun.RunAsync("get", "k", "--server", $"couchbase://127.0.0.1:{port}", "-u", "Administrator");
        var withoutUser = await CliRun.RunAsync("get", "k", "--server", $"couchbase://127.0.0.1:{port}");

        Assert.Equal(ExitCodes.Unreachable, withUser.ExitCode);
        Assert.Equal(ExitCodes.Usage, withoutUser.ExitCode);
        Assert.Contains("needs credentials", withoutUser.Error);
    }

    [Fact]
    public async Task CredentialsInTheEnvironmentDoNotStopATernServerFromBeingUsed()
    {
        using var _ = new TernVariables(user: "Administrator", password: "password");
        using var refusing = RefusingPort(out var port);

        var run = await CliRun.RunAsync("get", "k", "--server", $"127.0.0.1:{port}");

        Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
    }

    [Fact]
    public async Task HelpDescribesTheConnectionOptionsAndExitCodes()
    {
        var run = await CliRun.RunAsync("--help");

        Assert.Equal(ExitCodes.Success, run.ExitCode);
        foreach (var expected in new[]
                 {
                     "couchbase://HOST[:PORT]", "-u, --user USER", "-p, --password PASSWORD", "$TERN_PASSWORD",
                     "out of `ps`", "--bucket NAME", "--collection SCOPE.COLL", "4 authentication failed",
                     "5 no such bucket, scope or collection",
                 })
            Assert.Contains(expected, run.Output);
    }

    /// <summary>A bound socket that never listens keeps its port reserved and refuses connections.</summary>
    private static Socket RefusingPort(out int port)
    {
        var reserved = new Socket(SocketType.Stream, ProtocolType.Tcp);
        reserved.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        port = ((IPEndPoint)reserved.LocalEndPoint!).Port;
        return reserved;
    }
}

/// <summary>Sets $TERN_USER and $TERN_PASSWORD (null: unset) for one test, and restores them after.</summary>
internal sealed class TernVariables : IDisposable
{
    private readonly string? _user = Environment.GetEnvironmentVariable("TERN_USER");
    private readonly string? _password = Environment.GetEnvironmentVariable("TERN_PASSWORD");

    public TernVariables(string? user, string? password)
    {
        Environment.SetEnvironmentVariable("TERN_USER", user);
        Environment.SetEnvironmentVariable("TERN_PASSWORD", password);
    }

    public void Dispose()
    {
        Environment.SetEnvironmentVariable("TERN_USER", _user);
        Environment.SetEnvironmentVariable("TERN_PASSWORD", _password);
    }
}
