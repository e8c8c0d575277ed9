using System.Buffers.Binary;
using System.Text;
using Tern.Client.IO;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>Requests the server sends (magic 0x82, Duplex) reach the settings' handler; nothing goes back.</summary>
public class ServerRequestTests
{
    private static byte[] Version(long epoch, long revision)
    {
        var extras = new byte[16];
        BinaryPrimitives.WriteInt64BigEndian(extras, epoch);
        BinaryPrimitives.WriteInt64BigEndian(extras.AsSpan(8), revision);
        return extras;
    }

    [Fact]
    public async Task APushedClusterMapReachesTheHandlerCopiedOutOfTheReceiveBuffer()
    {
        var received = new TaskCompletionSource<(Connection, ServerRequest)>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var direct = await DirectConnection.OpenAsync(s => s with
        {
            OnServerRequest = (connection, request) => received.TrySetResult((connection, request)),
        });

        await direct.Server.PushAsync(ServerRequest.ClustermapChangeNotification, "travel"u8.ToArray(), Version(3, 42),
            """{"rev":42}"""u8.ToArray());
        var (on, request) = await received.Task.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Same(direct.Connection, on);
        Assert.Equal((ServerRequest.ClustermapChangeNotification, "travel", """{"rev":42}""", (byte)0),
            (request.Opcode, Encoding.UTF8.GetString(request.Key), Encoding.UTF8.GetString(request.Value), request.Datatype));
        Assert.True(request.TryReadMapVersion(out var epoch, out var revision));
        Assert.Equal((3L, 42L), (epoch, revision));
        Assert.Equal(0, direct.Connection.Requests); // no reply
    }

    [Fact]
    public async Task AHandlerThatThrowsIsLoggedAndTheConnectionCarriesOn()
    {
        using var log = new CapturedLog();
        await using var direct = await DirectConnection.OpenAsync(
            s => s with { OnServerRequest = (_, _) => throw new InvalidOperationException("handler broke") },
            log.Factory.CreateLogger("test"));

        await direct.Server.PushAsync(ServerRequest.ClustermapChangeNotification, [], Version(1, 2), []);
        var logged = Assert.Single(await log.WaitForAsync("handling server request"));
        var get = direct.Connection.SendAsync(new Tern.Client.Operations.RawRequest(Opcode.Get, Key: "after"u8.ToArray()),
            TimeSpan.FromMinutes(1)).AsTask();
        await direct.Server.RespondAsync(Assert.Single(await direct.Server.ReceiveAsync(1)), value: "still here");

        Assert.Equal($"handling server request 0x01 on {direct.Connection.Name} failed", logged);
        Assert.Equal("still here", Encoding.UTF8.GetString((await get).Value));
        Assert.True(direct.Connection.IsAlive);
    }
}
