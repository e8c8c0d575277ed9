using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>
/// One <see cref="Connection"/> opened straight to a <see cref="FakeServer"/>, no cluster around it,
/// with settings the test chooses and a clock it moves: the clock starts still, so nothing times out,
/// ticks or probes unless the test advances it.
/// </summary>
internal sealed class DirectConnection : IAsyncDisposable
{
    private readonly OrphanReporter _orphans;

    private DirectConnection(FakeServer server, Connection connection, FakeTimeProvider time, OrphanReporter orphans)
    {
        Server = server;
        Connection = connection;
        Time = time;
        _orphans = orphans;
    }

    public FakeServer Server { get; }

    public Connection Connection { get; }

    public FakeTimeProvider Time { get; }

    /// <summary>Opens a connection; <paramref name="configure"/> adjusts the default settings (64 slots, 10 ms ticks).</summary>
    public static async Task<DirectConnection> OpenAsync(Func<ConnectionSettings, ConnectionSettings>? configure = null,
        ILogger? logger = null, FakeTimeProvider? time = null)
    {
        time ??= new FakeTimeProvider();
        var orphans = new OrphanReporter(NullLogger.Instance, TimeSpan.FromHours(1), 4, time);
        var settings = new ConnectionSettings(64, TimeSpan.FromSeconds(10), TimeSpan.FromMilliseconds(10), [], orphans,
            logger ?? NullLogger.Instance, time);
        settings = configure?.Invoke(settings) ?? settings;
        var server = new FakeServer();
        var connection = await Connection.OpenAsync("127.0.0.1", server.Port, settings, CancellationToken.None);
        return new DirectConnection(server, connection, time, orphans);
    }

    /// <summary>A GET of <paramref name="key"/> as a raw operation, not yet sent.</summary>
    public RawOperation NewGet(string key, TimeSpan timeout, CancellationToken cancellationToken = default) =>
        RawOperation.Create(new RawRequest(Opcode.Get, Key: System.Text.Encoding.UTF8.GetBytes(key)), timeout, Time, cancellationToken);

    /// <summary>Sends an operation the way the dispatcher does: a slot first, then the send.</summary>
    public void Send(OperationBase operation)
    {
        Assert.True(Connection.TryAcquireSlot(), "the test's connection had no free slot");
        Connection.Send(operation);
    }

    public async ValueTask DisposeAsync()
    {
        await Connection.DisposeAsync();
        await Server.DisposeAsync();
        _orphans.Dispose();
    }
}
