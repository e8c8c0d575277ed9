namespace Tern.Cli.Tests;

/// <summary>The CLI over couchbase://: logging in, choosing the bucket and the collection, and what it says when they are wrong.</summary>
[Trait("Server", "ternd")]
public sealed class CouchbaseCommandTests(DevTerndFixture ternd) : IClassFixture<DevTerndFixture>
{
    private static string NewKey() => $"cli-{Guid.NewGuid():N}";

    /// <summary>A generous timeout: a busy machine runs the suites in parallel, and the first use of a bucket waits for its map.</summary>
    private Task<CliRun> Run(params string[] args) => CliRun.RunAsync(
        [.. args, "--server", ternd.CouchbaseUrl, "-u", DevTerndFixture.User, "-p", DevTerndFixture.Password, "--timeout", "10"]);

    [Fact]
    public async Task SetAndGetInANamedCollectionWhichTheDefaultCollectionDoesNotSee()
    {
        var key = NewKey();

        var set = await Run("set", key, "ada", "--collection", "app.users");
        var get = await Run("get", key, "--collection", "app.users");
        var inDefault = await Run("get", key);
        var inOrders = await Run("get", key, "--collection", "app.orders");

        Assert.Equal((ExitCodes.Success, ""), (set.ExitCode, set.Error));
        Assert.StartsWith($"stored '{key}' (3 bytes, cas ", set.Output);
        Assert.Equal((ExitCodes.Success, "ada", ""), (get.ExitCode, get.Output, get.Error));
        Assert.Equal(ExitCodes.OperationFailed, inDefault.ExitCode);
        Assert.Equal($"tern: document not found: key '{key}'", inDefault.Error);
        Assert.Equal(ExitCodes.OperationFailed, inOrders.ExitCode);
    }

    [Fact]
    public async Task BenchWithScanReadsTheKeysAgainWithBothScans()
    {
        var run = await Run("bench", "--scan", "--ops", "300", "--concurrency", "8", "--value-size", "16");

        Assert.True(run.ExitCode == ExitCodes.Success, run.Error);
        foreach (var phase in new[] { "scan ", "scan-ids " })
        {
            var line = run.Output.Split('\n').Single(l => l.StartsWith(phase, StringComparison.Ordinal));
            // At least the 300 written (an earlier, larger run's keys would stay too).
            Assert.True(long.Parse(line[phase.Length..].TrimStart().Split(' ')[0]) >= 300, run.Output);
            Assert.Contains($"{phase.Trim()} / get: ", line);
        }
        var classic = await CliRun.RunAsync("bench", "--scan", "--server", ternd.Address);
        Assert.Equal((ExitCodes.Usage, true), (classic.ExitCode, classic.Error.Contains("needs a couchbase:// server")));
    }

    [Fact]
    public async Task TheLongOptionsAndTheExplicitDefaultsWorkToo()
    {
        var key = NewKey();

        var set = await CliRun.RunAsync("set", key, "v", "--server", ternd.CouchbaseUrl, "--user", DevTerndFixture.User,
            "--password", DevTerndFixture.Password, "--bucket", "default", "--collection", "_default._default", "--timeout", "10");
        var get = await Run("get", key);

        Assert.Equal(ExitCodes.Success, set.ExitCode);
        Assert.Equal((ExitCodes.Success, "v"), (get.ExitCode, get.Output));
    }

    [Fact]
    public async Task TheDefaultCollectionOverCouchbaseIsTheOneTernClientsUse()
    {
        var key = NewKey();

        await Run("set", key, "shared");
        var classic = await CliRun.RunAsync("get", key, "--server", ternd.Address, "--timeout", "10");

        Assert.Equal((ExitCodes.Success, "shared"), (classic.ExitCode, classic.Output));
    }

    [Fact]
    public async Task CountersTouchAndRmWorkInACollection()
    {
        var key = NewKey();

        var created = await Run("incr", key, "--by", "5", "--collection", "app.orders");
        var decremented = await Run("decr", key, "--collection", "app.orders");
        var touched = await Run("touch", key, "60", "--collection", "app.orders");
        var removed = await Run("rm", key, "--collection", "app.orders");
        var gone = await Run("get", key, "--collection", "app.orders");

        Assert.Equal(("5", "4"), (created.Output, decremented.Output));
        Assert.Equal(ExitCodes.Success, touched.ExitCode);
        Assert.Equal($"removed '{key}'", removed.Output);
        Assert.Equal(ExitCodes.OperationFailed, gone.ExitCode);
    }

    [Fact]
    public async Task AWrongPasswordExitsWith4AndSaysToCheckTheCredentials()
    {
        var run = await CliRun.RunAsync("get", NewKey(), "--server", ternd.CouchbaseUrl, "-u", DevTerndFixture.User,
            "-p", "not-the-password", "--timeout", "10");

        Assert.Equal(ExitCodes.AuthenticationFailed, run.ExitCode);
        Assert.StartsWith("tern: authentication of user 'Administrator' at ", run.Error);
        Assert.Contains("wrong user name or password", run.Error);
        Assert.EndsWith("check -u and -p (or $TERN_USER and $TERN_PASSWORD)", run.Error);
        Assert.DoesNotContain("\n", run.Error);
        Assert.Equal("", run.Output);
    }

    [Fact]
    public async Task AnUnknownUserIsRefusedLikeAWrongPassword()
    {
        var run = await CliRun.RunAsync("get", NewKey(), "--server", ternd.CouchbaseUrl, "-u", "nobody", "-p", "password",
            "--timeout", "10");

        Assert.Equal(ExitCodes.AuthenticationFailed, run.ExitCode);
        Assert.Contains("user 'nobody'", run.Error);
    }

    [Theory]
    [InlineData("app.nosuch")]
    [InlineData("nosuch.users")]
    public async Task AnUnknownCollectionExitsWith5AndNamesIt(string collection)
    {
        var run = await Run("get", NewKey(), "--collection", collection);

        Assert.Equal(ExitCodes.NoSuchBucketOrCollection, run.ExitCode);
        Assert.Equal($"tern: {ternd.Address}: collection '{collection}' does not exist in bucket 'default' — check --collection (SCOPE.COLLECTION)",
            run.Error);
    }

    [Fact]
    public async Task AnUnknownBucketExitsWith5AndNamesIt()
    {
        var run = await Run("set", NewKey(), "v", "--bucket", "nosuch");

        Assert.Equal(ExitCodes.NoSuchBucketOrCollection, run.ExitCode);
        Assert.Equal($"tern: {ternd.Address}: bucket 'nosuch' does not exist, or user 'Administrator' may not use it — check --bucket",
            run.Error);
    }

    [Fact]
    public async Task StatsLogsInAndShowsTheBucketsItems()
    {
        await Run("set", NewKey(), "v");

        var run = await Run("stats");

        Assert.Equal((ExitCodes.Success, ""), (run.ExitCode, run.Error));
        var items = run.Output.Split('\n').Select(line => line.Split(' ', 2, StringSplitOptions.TrimEntries))
            .Single(parts => parts[0] == "curr_items");
        Assert.True(long.Parse(items[1]) >= 1, run.Output);
    }

    [Fact]
    public async Task StatsWithAWrongPasswordExitsWith4()
    {
        var run = await CliRun.RunAsync("stats", "--server", ternd.CouchbaseUrl, "-u", DevTerndFixture.User, "-p", "wrong");

        Assert.Equal(ExitCodes.AuthenticationFailed, run.ExitCode);
        Assert.StartsWith("tern: authentication of user 'Administrator' at ", run.Error);
        Assert.Equal("", run.Output);
    }

    [Fact]
    public async Task StatsOfAnUnknownBucketExitsWith5()
    {
        var run = await Run("stats", "--bucket", "nosuch");

        Assert.Equal(ExitCodes.NoSuchBucketOrCollection, run.ExitCode);
        Assert.Contains("bucket 'nosuch' does not exist", run.Error);
    }

    [Fact]
    public async Task BenchRunsOnACollection()
    {
        var run = await Run("bench", "--ops", "20", "--concurrency", "2", "--collection", "app.users");

        Assert.Equal((ExitCodes.Success, ""), (run.ExitCode, run.Error));
        Assert.StartsWith($"{ternd.Address}: 20 operations", run.Output);
    }
}
