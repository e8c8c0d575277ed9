using Tern.Client.Tests.Support;

namespace Tern.Cli.Tests;

/// <summary>
/// A real ternd started once for the class from server/config/dev.toml, on a free port: bucket
/// `default` with scope `app` (collections `users` and `orders`), user Administrator / password,
/// and `default` also open to anonymous tern:// clients. Started as the client tests start theirs
/// (<see cref="ServerProcess"/>), so it gets a fresh data directory of its own, removed at the end.
/// </summary>
public sealed class DevTerndFixture : IAsyncLifetime
{
    public const string User = "Administrator";
    public const string Password = "password";

    private ServerProcess? _server;

    public int Port => _server?.Port ?? throw new InvalidOperationException("ternd is not started");

    /// <summary>`host:port`, for tern://.</summary>
    public string Address => $"127.0.0.1:{Port}";

    public string CouchbaseUrl => $"couchbase://127.0.0.1:{Port}";

    public async Task InitializeAsync() => _server = await ServerProcess.StartTerndAsync(ServerProcess.DevConfigPath);

    public async Task DisposeAsync()
    {
        if (_server is not null)
            await _server.DisposeAsync();
    }
}
