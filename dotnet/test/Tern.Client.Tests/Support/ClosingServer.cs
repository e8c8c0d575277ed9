using System.Net;
using System.Net.Sockets;

namespace Tern.Client.Tests.Support;

/// <summary>
/// A server that accepts every connection and closes it at once, as one at its connection limit
/// or a dying proxy does; counts the connections it accepted.
/// </summary>
public sealed class ClosingServer : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _acceptLoop;
    private int _accepted;

    public ClosingServer()
    {
        _listener.Start();
        _acceptLoop = Task.Run(async () =>
        {
            while (!_stop.IsCancellationRequested)
            {
                using var socket = await _listener.AcceptSocketAsync(_stop.Token);
                Interlocked.Increment(ref _accepted);
            }
        });
    }

    /// <summary>"127.0.0.1:port", as the SDK's messages name it.</summary>
    public string Endpoint => $"127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}";

    public string ConnectionString => $"memcached://{Endpoint}";

    public int Accepted => Volatile.Read(ref _accepted);

    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        await Record.ExceptionAsync(() => _acceptLoop);
        _listener.Stop();
        _stop.Dispose();
    }
}
