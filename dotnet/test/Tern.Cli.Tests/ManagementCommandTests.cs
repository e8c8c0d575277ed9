namespace Tern.Cli.Tests;

/// <summary>`tern bucket` and `tern collection` against a real ternd's management port: output, errors and exit codes.</summary>
[Trait("Server", "ternd")]
public sealed class ManagementCommandTests(DevTerndFixture ternd) : IClassFixture<DevTerndFixture>
{
    private static string NewName(string prefix) => $"{prefix}{Guid.NewGuid():N}"[..12];

    private Task<CliRun> Run(params string[] args) => CliRun.RunAsync(
        [.. args, "--server", ternd.CouchbaseUrl, "-u", DevTerndFixture.User, "-p", DevTerndFixture.Password]);

    [Fact]
    public async Task ABucketIsCreatedListedFlushedAndDropped()
    {
        var name = NewName("b");

        var created = await Run("bucket", "create", name, "--type", "ephemeral", "--ram-mb", "100", "--flush", "--max-ttl", "60");
        var listed = await Run("bucket", "list");
        var stored = await Run("set", "k", "v", "--bucket", name);
        var flushed = await Run("bucket", "flush", name);
        var gone = await Run("get", "k", "--bucket", name);
        var dropped = await Run("bucket", "drop", name);
        var again = await Run("bucket", "drop", name);

        Assert.Equal((ExitCodes.Success, $"created bucket '{name}' (ephemeral, 100 MiB, flush on)", ""),
            (created.ExitCode, created.Output, created.Error));
        var lines = listed.Output.Split('\n');
        Assert.Matches(@"^NAME +TYPE +RAM_MB +FLUSH +MAX_TTL +EVICTION +MIN_DURABILITY$", lines[0]);
        Assert.Contains(lines, line => System.Text.RegularExpressions.Regex.IsMatch(line, $@"^{name} +ephemeral +100 +on +60 "));
        Assert.Contains(lines, line => line.StartsWith("default ", StringComparison.Ordinal));
        Assert.Equal(ExitCodes.Success, stored.ExitCode);
        Assert.Equal((ExitCodes.Success, $"flushed bucket '{name}'"), (flushed.ExitCode, flushed.Output));
        Assert.Equal(ExitCodes.OperationFailed, gone.ExitCode);
        Assert.Equal((ExitCodes.Success, $"dropped bucket '{name}'"), (dropped.ExitCode, dropped.Output));
        Assert.Equal(ExitCodes.NoSuchBucketOrCollection, again.ExitCode);
        Assert.Contains($"bucket '{name}' does not exist", again.Error);
    }

    [Fact]
    public async Task BucketRefusalsExitWith1AndSayWhy()
    {
        var name = NewName("b");

        var exists = await Run("bucket", "create", "default");
        var created = await Run("bucket", "create", name, "--type", "ephemeral");
        var notFlushable = await Run("bucket", "flush", name);
        await Run("bucket", "drop", name);

        Assert.Equal((ExitCodes.OperationFailed, "tern: bucket 'default' already exists"), (exists.ExitCode, exists.Error));
        Assert.Equal($"created bucket '{name}' (ephemeral, 100 MiB, flush off)", created.Output);
        Assert.Equal((ExitCodes.OperationFailed, $"tern: bucket '{name}' cannot be flushed: flush is not enabled on it"),
            (notFlushable.ExitCode, notFlushable.Error));
    }

    [Fact]
    public async Task ACollectionAndItsScopeAreCreatedListedUsedAndDropped()
    {
        var scope = NewName("s");

        var created = await Run("collection", "create", $"{scope}.things", "--max-ttl", "30");
        var listed = await Run("collection", "list");
        var used = await Run("set", "k", "v", "--collection", $"{scope}.things");
        var exists = await Run("collection", "create", $"{scope}.things");
        var dropped = await Run("collection", "drop", $"{scope}.things");
        var droppedAgain = await Run("collection", "drop", $"{scope}.things");
        var scopeDropped = await Run("collection", "drop", scope);
        var scopeGone = await Run("collection", "drop", scope);

        Assert.Equal((ExitCodes.Success, $"created scope '{scope}' in bucket 'default'\ncreated collection '{scope}.things' in bucket 'default'"),
            (created.ExitCode, created.Output));
        Assert.Contains(listed.Output.Split('\n'), line => System.Text.RegularExpressions.Regex.IsMatch(line, $@"^{scope} +things +30$"));
        Assert.Contains(listed.Output.Split('\n'), line => System.Text.RegularExpressions.Regex.IsMatch(line, @"^app +users +"));
        Assert.Equal(ExitCodes.Success, used.ExitCode);
        Assert.Equal((ExitCodes.OperationFailed, $"tern: collection '{scope}.things' already exists in bucket 'default'"),
            (exists.ExitCode, exists.Error));
        Assert.Equal($"dropped collection '{scope}.things' from bucket 'default'", dropped.Output);
        Assert.Equal(ExitCodes.NoSuchBucketOrCollection, droppedAgain.ExitCode);
        Assert.Equal((ExitCodes.Success, $"dropped scope '{scope}' and its collections from bucket 'default'"),
            (scopeDropped.ExitCode, scopeDropped.Output));
        Assert.Equal(ExitCodes.NoSuchBucketOrCollection, scopeGone.ExitCode);
        Assert.Contains($"scope '{scope}' does not exist in bucket 'default'", scopeGone.Error);
    }

    [Fact]
    public async Task WithoutAManagementPortTheCommandsExitWith6AndSayWhy()
    {
        await using var server = await Tern.Client.Tests.Support.ServerProcess.StartTerndAsync(
            Tern.Client.Tests.Support.ServerProcess.DevConfigPath, managementPort: "none");

        var run = await CliRun.RunAsync("bucket", "list", "--server", server.CouchbaseConnectionString,
            "-u", DevTerndFixture.User, "-p", DevTerndFixture.Password);

        Assert.Equal(ExitCodes.ServiceNotAvailable, run.ExitCode);
        Assert.Contains("the management service is not available: the cluster map of bucket 'default' lists no node with the \"mgmt\" service",
            run.Error);
        Assert.EndsWith("(tern looks for the management port in the cluster map of --bucket 'default')", run.Error);
    }
}
