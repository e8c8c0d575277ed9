using Tern.Client.Tests.Support;

namespace Tern.Cli.Tests;

/// <summary>A real ternd from server/config/dev.toml serving TLS with the test CA's certificate, accepting client certificates.</summary>
public sealed class TlsTerndFixture : IAsyncLifetime
{
    private ServerProcess? _server;

    public ServerProcess Server => _server ?? throw new InvalidOperationException("ternd is not started");

    public string Url => Server.TlsConnectionString();

    public async Task InitializeAsync() =>
        _server = await ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath, managementPort: "none",
            tls: TestCertificates.Server("server", clientAuth: "enabled"));

    public async Task DisposeAsync()
    {
        if (_server is not null)
            await _server.DisposeAsync();
    }
}

/// <summary>The CLI over couchbases://: --cacert, --cert/--key, --no-verify, and what it says when the certificate is refused.</summary>
[Trait("Server", "ternd")]
public sealed class TlsCommandTests(TlsTerndFixture ternd) : IClassFixture<TlsTerndFixture>
{
    private static string NewKey() => $"cli-tls-{Guid.NewGuid():N}";

    private static string Ca => TestCertificates.File("ca.pem");

    private Task<CliRun> Run(params string[] args) => CliRun.RunAsync([.. args, "--server", ternd.Url, "--timeout", "10"]);

    private Task<CliRun> RunAsAdministrator(params string[] args) =>
        Run([.. args, "-u", DevTerndFixture.User, "-p", DevTerndFixture.Password]);

    [Fact]
    public async Task CacertTrustsTheServerAndSetThenGetWork()
    {
        var key = NewKey();

        var set = await RunAsAdministrator("set", key, "over tls", "--cacert", Ca);
        var get = await RunAsAdministrator("get", key, "--cacert", Ca);
        var stats = await RunAsAdministrator("stats", "--cacert", Ca);

        Assert.Equal((ExitCodes.Success, ""), (set.ExitCode, set.Error));
        Assert.Equal((ExitCodes.Success, "over tls", ""), (get.ExitCode, get.Output, get.Error));
        Assert.Equal((ExitCodes.Success, ""), (stats.ExitCode, stats.Error));
        Assert.Contains("curr_items", stats.Output);
    }

    [Fact]
    public async Task WithoutCacertTheTestCaIsNotTrustedAndTheErrorSaysWhatToDo()
    {
        var run = await RunAsAdministrator("get", NewKey());

        Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
        Assert.StartsWith($"tern: the TLS certificate of 127.0.0.1:{ternd.Server.TlsPort} (subject 'CN=localhost", run.Error);
        Assert.Contains("is not trusted: RemoteCertificateChainErrors against the system trust store", run.Error);
        Assert.EndsWith("— give the CA that signed it with --cacert FILE", run.Error);
    }

    [Fact]
    public async Task NoVerifyConnectsAndWarnsOnStandardError()
    {
        var key = NewKey();

        var set = await RunAsAdministrator("set", key, "unverified", "--no-verify");

        Assert.Equal(ExitCodes.Success, set.ExitCode);
        Assert.Equal(Tern.Cli.TlsOptions.NoVerifyWarning, set.Error);
        Assert.StartsWith($"stored '{key}'", set.Output);
    }

    [Fact]
    public async Task AClientCertificateLogsInWithoutAPassword()
    {
        var key = NewKey();
        string[] certificate = ["--cacert", Ca, "--cert", TestCertificates.File("client-admin.pem"), "--key", TestCertificates.File("client-admin.key")];

        var set = await Run(["set", key, "by certificate", .. certificate]);
        var get = await RunAsAdministrator("get", key, "--cacert", Ca);
        var stats = await Run(["stats", .. certificate]);

        Assert.Equal((ExitCodes.Success, ""), (set.ExitCode, set.Error));
        Assert.Equal((ExitCodes.Success, "by certificate"), (get.ExitCode, get.Output));
        Assert.Equal((ExitCodes.Success, ""), (stats.ExitCode, stats.Error));        // Bucket default is open to anonymous clients too: the server's log shows who logged in.
        var watch = System.Diagnostics.Stopwatch.StartNew();
        while (!ternd.Server.Log.Any(line => line.Contains("authenticated as Administrator by client certificate")))
        {
            Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), "ternd did not log the certificate's login as Administrator");
            await Task.Delay(20);
        }
    }

    [Fact]
    public async Task AMissingCacertFileIsAUsageErrorNamingIt()
    {
        var run = await RunAsAdministrator("get", NewKey(), "--cacert", "/nonexistent/ca.pem");

        Assert.Equal(ExitCodes.Usage, run.ExitCode);
        Assert.Contains("cannot load '/nonexistent/ca.pem' as a PEM file of certificates", run.Error);
    }
}
