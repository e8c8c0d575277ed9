using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Support;

/// <summary>A request the fake server received.</summary>
public sealed record ReceivedRequest(Opcode Opcode, uint Opaque, string Key, ReadOnlyMemory<byte> Extras)
{
    /// <summary>0x80, or 0x08 for an alt request (one with framing extras).</summary>
    public byte Magic { get; init; } = (byte)Tern.Client.Protocol.Magic.Request;

    public ReadOnlyMemory<byte> FramingExtras { get; init; }

    /// <summary>The key as sent, collection prefix included.</summary>
    public ReadOnlyMemory<byte> KeyBytes { get; init; }

    public ReadOnlyMemory<byte> Value { get; init; }

    /// <summary>The datatype byte (0x01 JSON, 0x02 Snappy).</summary>
    public byte Datatype { get; init; }

    /// <summary>The vbucket the request was routed to.</summary>
    public ushort VBucket { get; init; }

    /// <summary>The CAS the request carries (0: none).</summary>
    public ulong Cas { get; init; }
}

/// <summary>
/// A scripted server on a free port: the test reads the requests the client sent and decides
/// which to answer, in what order and when, which a real server cannot be made to do.
/// </summary>
public sealed class FakeServer : IAsyncDisposable
{
    private readonly TcpListener _listener;
    private readonly Task<Socket> _accepted;
    private readonly bool _ownsListener;
    private readonly byte[] _buffer = new byte[64 * 1024];
    private int _buffered;

    public FakeServer()
    {
        _listener = new TcpListener(IPAddress.Loopback, 0);
        _ownsListener = true;
        _listener.Start();
        _accepted = _listener.AcceptSocketAsync();
    }

    private FakeServer(TcpListener listener)
    {
        _listener = listener;
        _accepted = listener.AcceptSocketAsync();
    }

    /// <summary>
    /// The next connection the client opens to the same port (call it once the previous one was
    /// accepted), for clients that connect more than once. Disposing it closes only that connection.
    /// </summary>
    public FakeServer AcceptNext() => new(_listener);

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

    /// <summary>
    /// Answers a request. With <paramref name="framingExtras"/> the answer is an alt response (magic
    /// 0x18), as a server that negotiated Tracing sends with its processing time.
    /// </summary>
    public Task RespondAsync(ReceivedRequest request, ResponseStatus status = ResponseStatus.Success,
        string value = "", uint flags = 0, ulong cas = 1, byte[]? framingExtras = null)
    {
        // Reads answer with the document's flags in the extras, as a real server does.
        var extras = new byte[request.Opcode is Opcode.Get or Opcode.Gat or Opcode.GetLocked ? 4 : 0];
        if (extras.Length == 4)
            System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(extras, flags);
        var magic = framingExtras is null ? Magic.Response : Magic.AltResponse;
        return SendFrameAsync(magic, (byte)request.Opcode, (ushort)status, request.Opaque, cas, framingExtras ?? [], extras, [],
            Encoding.UTF8.GetBytes(value));
    }

    /// <summary>Sends a request of the server's own (magic 0x82), as Couchbase pushes a new cluster map.</summary>
    public Task PushAsync(byte opcode, byte[] key, byte[] extras, byte[] value) =>
        SendFrameAsync(Magic.ServerRequest, opcode, 0, 0, 0, [], extras, key, value);

    /// <summary>Sends any frame to the client.</summary>
    public async Task SendFrameAsync(Magic magic, byte opcode, ushort status, uint opaque, ulong cas,
        byte[] framingExtras, byte[] extras, byte[] key, byte[] value, byte datatype = 0)
    {
        var socket = await _accepted;
        var frame = new byte[FrameCodec.EncodedSize(framingExtras.Length, extras.Length, key.Length, value.Length)];
        FrameCodec.Encode(frame, (byte)magic, opcode, datatype, status, opaque, cas, framingExtras, extras, key, value);
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
            frame.Extras.ToArray())
        {
            Magic = frame.Header.Magic,
            FramingExtras = frame.FramingExtras.ToArray(),
            KeyBytes = frame.Key.ToArray(),
            Value = frame.Value.ToArray(),
            Datatype = frame.Header.Datatype,
            VBucket = frame.Header.VBucketOrStatus,
            Cas = frame.Header.Cas,
        };
        var size = frame.Size;
        _buffer.AsSpan(size, _buffered - size).CopyTo(_buffer);
        _buffered -= size;
        return true;
    }

    public async ValueTask DisposeAsync()
    {
        if (_ownsListener)
            _listener.Stop();
        if (_accepted.IsCompletedSuccessfully)
            (await _accepted).Dispose();
    }
}
