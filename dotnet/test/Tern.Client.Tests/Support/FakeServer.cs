using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Support;

/// <summary>A request the fake server received.</summary>
public sealed record ReceivedRequest(Opcode Opcode, uint Opaque, string Key, ReadOnlyMemory<byte> Extras);

/// <summary>
/// A scripted server on a free port: the test reads the requests the client sent and decides
/// which to answer, in what order and when, which a real server cannot be made to do.
/// </summary>
public sealed class FakeServer : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly Task<Socket> _accepted;
    private readonly byte[] _buffer = new byte[64 * 1024];
    private int _buffered;

    public FakeServer()
    {
        _listener.Start();
        _accepted = _listener.AcceptSocketAsync();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    public string ConnectionString => $"memcached://127.0.0.1:{Port}";

    /// <summary>Reads until <paramref name="count"/> whole requests have arrived.</summary>
    public async Task<IReadOnlyList<ReceivedRequest>> ReceiveAsync(int count)
    {
        var socket = await _accepted.WaitAsync(TimeSpan.FromSeconds(10));
        var requests = new List<ReceivedRequest>();
        while (requests.Count < count)
        {
            while (TryTake(out var request))
                requests.Add(request);
            if (requests.Count >= count)
                break;
            var read = await socket.ReceiveAsync(_buffer.AsMemory(_buffered)).AsTask().WaitAsync(TimeSpan.FromSeconds(10));
            if (read == 0)
                throw new EndOfStreamException("the client closed the connection");
            _buffered += read;
        }
        return requests;
    }

    public async Task RespondAsync(ReceivedRequest request, ResponseStatus status = ResponseStatus.Success,
        string value = "", uint flags = 0, ulong cas = 1)
    {
        var socket = await _accepted;
        // Reads answer with the document's flags in the extras, as a real server does.
        var extras = new byte[request.Opcode is Opcode.Get or Opcode.GetAndTouch or Opcode.GetLocked ? 4 : 0];
        if (extras.Length == 4)
            System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(extras, flags);
        var body = Encoding.UTF8.GetBytes(value);
        var frame = new byte[FrameCodec.EncodedSize(0, extras.Length, 0, body.Length)];
        FrameCodec.Encode(frame, (byte)Magic.Response, (byte)request.Opcode, 0, (ushort)status, request.Opaque, cas,
            default, extras, default, body);
        await socket.SendAsync(frame);
    }

    /// <summary>Closes the client's connection, as a crashing server would.</summary>
    public async Task DisconnectAsync()
    {
        var socket = await _accepted;
        socket.Close();
    }

    private bool TryTake(out ReceivedRequest request)
    {
        request = null!;
        if (FrameCodec.TryDecode(_buffer.AsSpan(0, _buffered), out var frame) != DecodeResult.Ok)
            return false;
        request = new ReceivedRequest((Opcode)frame.Header.Opcode, frame.Header.Opaque, Encoding.UTF8.GetString(frame.Key),
            frame.Extras.ToArray());
        var size = frame.Size;
        _buffer.AsSpan(size, _buffered - size).CopyTo(_buffer);
        _buffered -= size;
        return true;
    }

    public async ValueTask DisposeAsync()
    {
        _listener.Stop();
        if (_accepted.IsCompletedSuccessfully)
            (await _accepted).Dispose();
    }
}
