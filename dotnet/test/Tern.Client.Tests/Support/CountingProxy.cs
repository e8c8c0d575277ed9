using System.Net;
using System.Net.Sockets;

namespace Tern.Client.Tests.Support;

/// <summary>
/// A TCP proxy on a free loopback port that forwards bytes both ways to a server and counts,
/// per connection, the client's bursts: client-to-server traffic that follows server traffic
/// (or starts the connection). Pipelined requests sent before the first answer arrives are one
/// burst; a client that waits for an answer before sending on makes a new one. So a bootstrap
/// of two round trips shows two bursts, seen from outside the client.
/// </summary>
public sealed class CountingProxy : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly int _targetPort;
    private readonly CancellationTokenSource _stop = new();
    private readonly List<ProxiedConnection> _connections = new();
    private readonly List<Task> _pumps = new();
    private readonly Task _acceptLoop;

    public CountingProxy(int targetPort)
    {
        _targetPort = targetPort;
        _listener.Start();
        _acceptLoop = Task.Run(AcceptAsync);
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Every connection accepted so far, in order.</summary>
    public IReadOnlyList<ProxiedConnection> Connections
    {
        get
        {
            lock (_connections)
                return _connections.ToArray();
        }
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            Socket client;
            try
            {
                client = await _listener.AcceptSocketAsync(_stop.Token);
            }
            catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
            {
                return;
            }
            var server = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            client.NoDelay = true;
            await server.ConnectAsync(IPAddress.Loopback, _targetPort);
            var connection = new ProxiedConnection(client, server);
            lock (_connections)
            {
                _connections.Add(connection);
                _pumps.Add(connection.PumpAsync(_stop.Token));
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        _listener.Stop();
        await Record.ExceptionAsync(() => _acceptLoop);
        Task[] pumps;
        lock (_connections)
            pumps = _pumps.ToArray();
        foreach (var connection in Connections)
            connection.Close();
        await Record.ExceptionAsync(() => Task.WhenAll(pumps));
        _stop.Dispose();
    }

    public sealed class ProxiedConnection(Socket client, Socket server)
    {
        private readonly object _lock = new();
        private bool _serverSpokeLast = true;
        private int _clientBursts;
        private long _clientBytes;
        private long _serverBytes;

        /// <summary>Client-to-server bursts so far (see <see cref="CountingProxy"/>).</summary>
        public int ClientBursts
        {
            get
            {
                lock (_lock)
                    return _clientBursts;
            }
        }

        public long ClientBytes => Interlocked.Read(ref _clientBytes);

        public long ServerBytes => Interlocked.Read(ref _serverBytes);

        /// <summary>True once either side closed.</summary>
        public bool Closed { get; private set; }

        internal Task PumpAsync(CancellationToken stop) =>
            Task.WhenAll(Task.Run(() => ForwardAsync(client, server, fromClient: true, stop)),
                Task.Run(() => ForwardAsync(server, client, fromClient: false, stop)));

        private async Task ForwardAsync(Socket from, Socket to, bool fromClient, CancellationToken stop)
        {
            var buffer = new byte[64 * 1024];
            try
            {
                while (true)
                {
                    var read = await from.ReceiveAsync(buffer, SocketFlags.None, stop);
                    if (read == 0)
                        break;
                    // Counted before forwarding: the other side cannot react to bytes it has not received yet,
                    // so a reaction is always recorded after what caused it.
                    lock (_lock)
                    {
                        if (fromClient && _serverSpokeLast)
                            _clientBursts++;
                        _serverSpokeLast = !fromClient;
                    }
                    if (fromClient)
                        Interlocked.Add(ref _clientBytes, read);
                    else
                        Interlocked.Add(ref _serverBytes, read);
                    await to.SendAsync(buffer.AsMemory(0, read), SocketFlags.None, stop);
                }
            }
            catch (Exception e) when (e is OperationCanceledException or SocketException or ObjectDisposedException)
            {
            }
            finally
            {
                Close();
            }
        }

        internal void Close()
        {
            Closed = true;
            try
            {
                client.Shutdown(SocketShutdown.Both);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
            }
            try
            {
                server.Shutdown(SocketShutdown.Both);
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
            }
            client.Dispose();
            server.Dispose();
        }
    }
}
