using Tern.Client.Tests.Support;

namespace Tern.Cli.Tests;

/// <summary>A real ternd, started once for the class on a free port.</summary>
public sealed class TerndFixture : IAsyncLifetime
{
    public ServerProcess Server { get; private set; } = null!;

    public string Address => $"127.0.0.1:{Server.Port}";

    public async Task InitializeAsync() => Server = await ServerProcess.StartTerndAsync();

    public async Task DisposeAsync() => await Server.DisposeAsync();
}

/// <summary>Every command against a real ternd, checked through what a person sees.</summary>
[Trait("Server", "ternd")]
public sealed class TerndCommandTests(TerndFixture ternd) : IClassFixture<TerndFixture>
{
    private static string NewKey() => $"cli-{Guid.NewGuid():N}";

    private Task<CliRun> Run(params string[] args) => CliRun.RunAsync([.. args, "--server", ternd.Address]);

    [Fact]
    public async Task SetThenGetPrintsTheValueUnchanged()
    {
        var key = NewKey();

        var set = await Run("set", key, "héllo wörld");
        var get = await Run("get", key);

        Assert.Equal(ExitCodes.Success, set.ExitCode);
        Assert.Contains($"stored '{key}'", set.Output);
        Assert.Equal(ExitCodes.Success, get.ExitCode);
        Assert.Equal("héllo wörld", get.Output);
    }

    [Fact]
    public async Task GetOfAMissingKeyExitsWith1AndNamesTheKey()
    {
        var key = NewKey();

        var run = await Run("get", key);

        Assert.Equal(ExitCodes.OperationFailed, run.ExitCode);
        Assert.Equal($"tern: document not found: key '{key}'", run.Error);
    }

    [Fact]
    public async Task RmRemovesTheKeyAndASecondRmFails()
    {
        var key = NewKey();
        await Run("set", key, "v");

        var first = await Run("rm", key);
        var get = await Run("get", key);
        var second = await Run("rm", key);

        Assert.Equal(ExitCodes.Success, first.ExitCode);
        Assert.Equal(ExitCodes.OperationFailed, get.ExitCode);
        Assert.Equal(ExitCodes.OperationFailed, second.ExitCode);
    }

    [Fact]
    public async Task IncrCreatesTheCounterThenAddsAndDecrSubtracts()
    {
        var key = NewKey();

        var created = await Run("incr", key);
        var added = await Run("incr", key, "--by", "5");
        var subtracted = await Run("decr", key, "--by", "2");

        Assert.Equal("1", created.Output);
        Assert.Equal("6", added.Output);
        Assert.Equal("4", subtracted.Output);
    }

    [Fact]
    public async Task IncrWithNoCreateFailsOnAMissingCounter()
    {
        var run = await Run("incr", NewKey(), "--no-create");

        Assert.Equal(ExitCodes.OperationFailed, run.ExitCode);
        Assert.Contains("not found", run.Error);
    }

    [Fact]
    public async Task TouchOfAMissingKeyFailsAndOfAnExistingOneSucceeds()
    {
        var key = NewKey();

        var missing = await Run("touch", key, "60");
        await Run("set", key, "v");
        var existing = await Run("touch", key, "60");

        Assert.Equal(ExitCodes.OperationFailed, missing.ExitCode);
        Assert.Equal(ExitCodes.Success, existing.ExitCode);
        Assert.Equal($"'{key}' expires in 60 s", existing.Output);
    }

    [Fact]
    public async Task AKeyTooLongForTheProtocolIsAUsageError()
    {
        var run = await Run("set", new string('k', 251), "v");

        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains("longer than 250 UTF-8 bytes", run.Error);
    }

    [Fact]
    public async Task StatsCountsTheItemsStored()
    {
        await Run("set", NewKey(), "v");

        var run = await Run("stats");

        Assert.Equal(ExitCodes.Success, run.ExitCode);
        var items = run.Output.Split('\n').Select(line => line.Split(' ', 2, StringSplitOptions.TrimEntries))
            .Single(parts => parts[0] == "curr_items");
        Assert.True(long.Parse(items[1]) >= 1, run.Output);
    }

    [Fact]
    public async Task StatsOfAnUnknownGroupSaysSo()
    {
        var run = await Run("stats", "nosuchgroup");

        Assert.Equal(ExitCodes.OperationFailed, run.ExitCode);
        Assert.Equal("tern: unknown stats group 'nosuchgroup'", run.Error);
        Assert.Equal("", run.Output);
    }
}
