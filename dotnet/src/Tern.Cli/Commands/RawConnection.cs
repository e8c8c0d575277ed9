using System.Net.Sockets;
using System.Text;
using Tern.Client.Protocol;

namespace Tern.Cli.Commands;

/// <summary>One answer frame: its status, key and value (copied out of the receive buffer).</summary>
internal readonly record struct RawReply(ResponseStatus Status, byte[] Key, byte[] Value);

/// <summary>
/// One socket speaking the binary protocol frame by frame with the SDK's codec, for what the SDK's
/// one-request-one-answer operations cannot carry (STAT answers with a frame per statistic).
/// Over couchbases:// it handshakes TLS first, with the SDK's checks.
/// </summary>
internal sealed class RawConnection : IDisposable
{
    private readonly Socket _socket;
    private readonly Stream _stream;
    private byte[] _buffer = new byte[64 * 1024];
    private int _filled;
    private uint _opaque;

    private RawConnection(Socket socket, Stream stream)
    {
        _socket = socket;
        _stream = stream;
    }

    public static async Task<RawConnection> OpenAsync(ServerAddress server, TlsOptions? tls, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        try
        {
            await socket.ConnectAsync(server.Host, server.Port, cancellationToken);
            var stream = tls is null
                ? (Stream)new NetworkStream(socket, ownsSocket: false)
                : await tls.Connector().AuthenticateAsync(socket, server.Host, server.Port, cancellationToken);
            return new RawConnection(socket, stream);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            socket.Dispose();
            throw new SocketException((int)SocketError.TimedOut);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>Sends one request: <paramref name="key"/> as UTF-8, no extras.</summary>
    public async Task SendAsync(Opcode opcode, string key, ReadOnlyMemory<byte> value, CancellationToken cancellationToken)
    {
        var keyBytes = Encoding.UTF8.GetBytes(key);
        var request = new byte[FrameCodec.EncodedSize(0, 0, keyBytes.Length, value.Length)];
        FrameCodec.Encode(request, (byte)Magic.Request, (byte)opcode, 0, 0, opaque: ++_opaque, cas: 0, [], [], keyBytes, value.Span);
        await _stream.WriteAsync(request, cancellationToken);
    }

    /// <summary>The next frame the server sends, whatever its status.</summary>
    public async Task<RawReply> ReceiveAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            if (TryTake(out var reply))
                return reply;
            if (_filled == _buffer.Length)
                Array.Resize(ref _buffer, _buffer.Length * 2);
            var read = await _stream.ReadAsync(_buffer.AsMemory(_filled), cancellationToken);
            if (read == 0)
                throw new IOException("the server closed the connection before it answered");
            _filled += read;
        }
    }

    /// <summary>Sends a request and returns its answer.</summary>
    public async Task<RawReply> AskAsync(Opcode opcode, string key, ReadOnlyMemory<byte> value, CancellationToken cancellationToken)
    {
        await SendAsync(opcode, key, value, cancellationToken);
        return await ReceiveAsync(cancellationToken);
    }

    private bool TryTake(out RawReply reply)
    {
        reply = default;
        var result = FrameCodec.TryDecode(_buffer.AsSpan(0, _filled), out var frame);
        if (result == DecodeResult.NeedMore)
            return false;
        if (result != DecodeResult.Ok)
            throw new IOException($"the server sent a malformed frame ({result})");
        reply = new RawReply((ResponseStatus)frame.Header.VBucketOrStatus, frame.Key.ToArray(), frame.Value.ToArray());
        var size = frame.Size;
        _buffer.AsSpan(size, _filled - size).CopyTo(_buffer);
        _filled -= size;
        return true;
    }

    public void Dispose()
    {
        _stream.Dispose();
        _socket.Dispose();
    }
}
