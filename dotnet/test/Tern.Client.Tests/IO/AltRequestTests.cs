using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.IO;

/// <summary>
/// Framing extras travel only on a connection that negotiated alt requests; alt responses bring the
/// server's processing time back.
/// </summary>
public class AltRequestTests
{
    private static readonly byte[] Durable = [0x11, 0x01]; // durability frame: id 1, length 1, level Majority

    private static RawRequest DurableSet(string key) =>
        new(Opcode.Set, Key: System.Text.Encoding.UTF8.GetBytes(key), Extras: new byte[8], Value: "v"u8.ToArray(), FramingExtras: Durable);

    [Fact]
    public async Task AnAltRequestOnAConnectionWithoutAltRequestsFailsAtOnceUnsent()
    {
        await using var direct = await DirectConnection.OpenAsync(s => s with { MaxInFlight = 1 });
        var connection = direct.Connection;

        var error = await Assert.ThrowsAsync<FeatureNotAvailableException>(
            () => connection.SendAsync(DurableSet("durable"), TimeSpan.FromMinutes(1)).AsTask());

        Assert.Equal($"set of key '' cannot be sent on {connection.Name}: the server did not negotiate alt requests " +
            "(needed for durability / preserve-TTL)", error.Message);
        Assert.Equal((0, 0L), (connection.InFlight, connection.Requests));
        // The slot was given back: a connection with one slot still sends.
        var next = connection.SendAsync(new RawRequest(Opcode.Noop), TimeSpan.FromMinutes(1)).AsTask();
        await direct.Server.RespondAsync(Assert.Single(await direct.Server.ReceiveAsync(1)));
        Assert.Equal(ResponseStatus.Success, (await next).Status);
    }

    [Fact]
    public async Task AnAltRequestOnAConnectionThatNegotiatedThemGoesOutWithItsFramingExtras()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var connection = direct.Connection;
        connection.Features = new ConnectionFeatures(new HashSet<HelloFeature> { HelloFeature.AltRequestSupport }, null, ErrorMap.Default);

        var set = connection.SendAsync(DurableSet("durable"), TimeSpan.FromMinutes(1)).AsTask();
        var request = Assert.Single(await direct.Server.ReceiveAsync(1));
        await direct.Server.RespondAsync(request);

        Assert.Equal((byte)Magic.AltRequest, request.Magic);
        Assert.Equal(Durable, request.FramingExtras.ToArray());
        Assert.Equal(("durable", "v"), (request.Key, System.Text.Encoding.UTF8.GetString(request.Value.Span)));
        Assert.Equal(ResponseStatus.Success, (await set).Status);
    }

    [Fact]
    public async Task AnAltResponseCarriesTheServersDuration()
    {
        await using var direct = await DirectConnection.OpenAsync();
        byte[] tracing = [0x02, 0x01, 0x00]; // server duration frame: id 0, length 2, encoded 256
        Assert.True(FramingExtras.TryReadServerDuration(tracing, out var expected));

        var traced = direct.Connection.SendAsync(new RawRequest(Opcode.Noop), TimeSpan.FromMinutes(1)).AsTask();
        await direct.Server.RespondAsync(Assert.Single(await direct.Server.ReceiveAsync(1)), framingExtras: tracing);
        var plain = direct.Connection.SendAsync(new RawRequest(Opcode.Noop), TimeSpan.FromMinutes(1)).AsTask();
        await direct.Server.RespondAsync(Assert.Single(await direct.Server.ReceiveAsync(1)));

        Assert.Equal(expected, (await traced).ServerDuration);
        Assert.True(expected > TimeSpan.Zero);
        Assert.Null((await plain).ServerDuration);
    }
}
