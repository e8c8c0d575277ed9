using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Management.Integration;

/// <summary>
/// ternd from server/config/dev.toml plus a user who may only read bucket default, with its
/// management port on a free port; the cluster's bucket default is open, so the cluster has a map
/// that lists the port.
/// </summary>
public sealed class ManagementFixture : CouchbaseFixture
{
    public const string ReaderName = "reader";
    public const string ReaderPassword = "reader-password";

    private string? _config;

    protected override Task<ServerProcess> StartServerAsync()
    {
        _config = Path.Combine(Path.GetTempPath(), $"tern-dotnet-mgmt-{Guid.NewGuid():N}.toml");
        File.WriteAllText(_config, File.ReadAllText(ServerProcess.DevConfigPath) + $"""

            [[user]]
            name = "{ReaderName}"
            buckets = ["default"]
            password = "{ReaderPassword}"
            """);
        return ServerProcess.StartTerndAsync(_config);
    }

    public override async Task DisposeAsync()
    {
        await base.DisposeAsync();
        if (_config is not null)
            File.Delete(_config);
    }
}
