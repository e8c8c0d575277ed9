using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.IO;

/// <summary>
/// A connection that hears nothing for the keepalive interval sends a NOOP, and one that then hears
/// nothing for the keepalive timeout is declared dead. The clock is a FakeTimeProvider: the NOOP is
/// written, and the connection failed, within the tick the test's Advance runs, so counting requests
/// and reading IsAlive right after it is exact.
/// </summary>
public class KeepAliveTests
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(2.5);
    private static readonly TimeSpan Millisecond = TimeSpan.FromMilliseconds(1);

    private static Task<DirectConnection> OpenAsync(int maxInFlight = 64) =>
        DirectConnection.OpenAsync(s => s with { MaxInFlight = maxInFlight, KeepAliveInterval = Interval, KeepAliveTimeout = Timeout });

    private static string DeadPeer(Connection connection) =>
        $"connection {connection.Name}: no answer to a keepalive NOOP within 2500 ms; the peer is declared dead";

    [Fact]
    public async Task ASilentPeerIsProbedAfterTheIntervalAndDeclaredDeadAfterTheTimeout()
    {
        await using var direct = await OpenAsync();
        var (server, connection, time) = (direct.Server, direct.Connection, direct.Time);
        var pending = direct.NewGet("pending", TimeSpan.FromHours(1));
        direct.Send(pending);
        await server.ReceiveAsync(1);

        time.Advance(Interval - Millisecond);
        Assert.Equal(1, connection.Requests);
        time.Advance(Millisecond);
        Assert.Equal(2, connection.Requests);
        Assert.Equal(Opcode.Noop, Assert.Single(await server.ReceiveAsync(1)).Opcode);
        time.Advance(Timeout - Millisecond);
        Assert.True(connection.IsAlive);
        time.Advance(Millisecond);
        Assert.False(connection.IsAlive);

        var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => pending.AsValueTask().AsTask());
        Assert.Equal($"get of key '' failed: connection {connection.Name} is down ({DeadPeer(connection)}); the request was sent",
            error.Message);
        Assert.Equal(DeadPeer(connection), connection.Failure!.Message);
    }

    [Fact]
    public async Task APeerThatAnswersTheProbeStaysAliveAndIsProbedAgainAWholeIntervalLater()
    {
        await using var direct = await OpenAsync();
        var (server, connection, time) = (direct.Server, direct.Connection, direct.Time);

        time.Advance(Interval);
        var noop = Assert.Single(await server.ReceiveAsync(1));
        Assert.Equal(Opcode.Noop, noop.Opcode);
        await server.RespondAsync(noop);
        await connection.KeepAliveProbe!.WaitAsync(TimeSpan.FromSeconds(10));
        time.Advance(Timeout);
        Assert.True(connection.IsAlive);

        time.Advance(Interval - Timeout - Millisecond);
        Assert.Equal(1, connection.Requests);
        time.Advance(Millisecond);
        Assert.Equal(2, connection.Requests);
        Assert.Equal(Opcode.Noop, Assert.Single(await server.ReceiveAsync(1)).Opcode);
    }

    [Fact]
    public async Task AConnectionWhoseAnswersKeepFlowingSendsNoProbe()
    {
        await using var direct = await OpenAsync();
        var (server, connection, time) = (direct.Server, direct.Connection, direct.Time);

        for (var i = 0; i < 4; i++)
        {
            time.Advance(Interval - Millisecond);
            var get = direct.NewGet($"key{i}", TimeSpan.FromHours(1));
            direct.Send(get);
            var request = Assert.Single(await server.ReceiveAsync(1));
            Assert.Equal((Opcode.Get, $"key{i}"), (request.Opcode, request.Key));
            await server.RespondAsync(request);
            await get.AsValueTask();
        }

        Assert.Equal(4, connection.Requests);
        Assert.True(connection.IsAlive);
    }

    [Fact]
    public async Task AConnectionWithNoFreeSlotIsDeclaredDeadWithoutSendingTheProbe()
    {
        await using var direct = await OpenAsync(maxInFlight: 1);
        var (server, connection, time) = (direct.Server, direct.Connection, direct.Time);
        var pending = direct.NewGet("pending", TimeSpan.FromHours(1));
        direct.Send(pending);
        await server.ReceiveAsync(1);

        time.Advance(Interval); // the probe's clock starts, with no NOOP: no slot is free
        time.Advance(Timeout - Millisecond);
        Assert.True(connection.IsAlive);
        time.Advance(Millisecond);

        Assert.False(connection.IsAlive);
        Assert.Equal(1, connection.Requests);
        await Assert.ThrowsAsync<ConnectionFailedException>(() => pending.AsValueTask().AsTask());
    }

    [Fact]
    public async Task AZeroIntervalTurnsKeepAliveOff()
    {
        await using var direct = await DirectConnection.OpenAsync(s => s with { KeepAliveInterval = TimeSpan.Zero });

        direct.Time.Advance(TimeSpan.FromHours(1));

        Assert.Equal(0, direct.Connection.Requests);
        Assert.True(direct.Connection.IsAlive);
    }
}
