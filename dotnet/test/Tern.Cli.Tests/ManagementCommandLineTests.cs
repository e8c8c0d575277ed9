namespace Tern.Cli.Tests;

/// <summary>
/// `tern bucket` and `tern collection` mistakes: each is a usage error (exit 2) found before
/// anything connects. The server's port refuses connections: reaching it would exit 3, not 2.
/// </summary>
public sealed class ManagementCommandLineTests
{
    [Theory]
    [InlineData("bucket", "bucket: missing ACTION (list, create, drop, flush)")]
    [InlineData("bucket frob", "bucket: unknown action 'frob' (expected list, create, drop, flush)")]
    [InlineData("bucket create", "bucket: missing NAME")]
    [InlineData("bucket drop a b", "unexpected argument 'b'")]
    [InlineData("bucket create b --type couchdb", "--type must be couchbase, ephemeral or memcached, got 'couchdb'")]
    [InlineData("bucket create b --ram-mb 0", "--ram-mb must be positive, got 0")]
    [InlineData("bucket create b --eviction lru", "--eviction must be one of ValueOnly, FullEviction, NoEviction, NotRecentlyUsed, got 'lru'")]
    [InlineData("bucket create b --durability 1", "--durability must be one of None, Majority,")]
    [InlineData("bucket create b --max-ttl -1", "--max-ttl expects a non-negative whole number, got '-1'")]
    [InlineData("collection", "collection: missing ACTION (list, create, drop)")]
    [InlineData("collection create", "collection: missing SCOPE or SCOPE.COLLECTION")]
    [InlineData("collection create a.b.c", "'a.b.c' is not SCOPE or SCOPE.COLLECTION")]
    [InlineData("collection drop .users", "'.users' is not SCOPE or SCOPE.COLLECTION")]
    [InlineData("collection create app --max-ttl 5", "--max-ttl applies to a collection: give SCOPE.COLLECTION")]
    public async Task MistakesExitWith2WithoutContactingTheServer(string commandLine, string expected)
    {
        using var refusing = CommandLineTests.RefusingPort(out var port);

        var run = await CliRun.RunAsync([.. commandLine.Split(' '), "--server", $"couchbase://127.0.0.1:{port}", "-u", "u", "-p", "p"]);

        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains(expected, run.Error);
        Assert.Equal("", run.Output);
    }

    [Theory]
    [InlineData("bucket", "list")]
    [InlineData("collection", "create", "app.users")]
    public async Task ManagementNeedsCouchbase(params string[] args)
    {
        using var refusing = CommandLineTests.RefusingPort(out var port);

        var run = await CliRun.RunAsync([.. args, "--server", $"127.0.0.1:{port}"]);

        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Equal($"tern: tern {args[0]} needs a couchbase:// server (the management port); tern:// has none (see `tern --help`)", run.Error);
    }

    [Fact]
    public async Task HelpListsTheManagementCommandsAndExitCode6()
    {
        var run = await CliRun.RunAsync("--help");

        Assert.Contains("bucket create NAME [--type couchbase|ephemeral|memcached]", run.Output);
        Assert.Contains("collection drop SCOPE[.COLL]", run.Output);
        Assert.Contains("6 no management port", run.Output);
    }
}
