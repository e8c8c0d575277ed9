using System.Net;
using System.Net.Sockets;
using Tern.Client.Protocol;

namespace Tern.Cli.Tests;

/// <summary>
/// A server that reads one whole request and answers it with a header no memcached-protocol server
/// sends (bad magic), as a foreign or broken server would: the client sees a protocol error after
/// its request was sent. A real ternd cannot be made to do this.
/// </summary>
public sealed class MalformedAnswerServer : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly Task _serving;

    public MalformedAnswerServer()
    {
        _listener.Start();
        _serving = ServeAsync();
    }

    public string Address => $"127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}";

    private async Task ServeAsync()
    {
        using var socket = await _listener.AcceptSocketAsync();
        var buffer = new byte[64 * 1024];
        var filled = 0;
        while (FrameCodec.TryDecode(buffer.AsSpan(0, filled), out _) == DecodeResult.NeedMore)
        {
            var read = await socket.ReceiveAsync(buffer.AsMemory(filled));
            if (read == 0)
                return;
            filled += read;
        }
        var garbage = new byte[FrameHeader.Size];
        Array.Fill(garbage, (byte)0xEE);
        await socket.SendAsync(garbage);
        // Keep the connection open until the client drops it, so the error is the garbage, not a close.
        await socket.ReceiveAsync(new byte[1]);
    }

    public async ValueTask DisposeAsync()
    {
        _listener.Stop();
        try
        {
            await _serving.WaitAsync(TimeSpan.FromSeconds(10));
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException or TimeoutException)
        {
            // The client may never have connected (the test failed earlier) or may have reset the connection.
        }
    }
}
