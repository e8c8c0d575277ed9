using System.Net;
using System.Net.Sockets;

namespace Tern.Client.Tests.IO;

/// <summary>Reconnecting must back off even when the TCP connect itself succeeds.</summary>
public class ReconnectBackoffTests
{
    [Fact]
    public async Task AServerThatClosesEveryConnectionAtOnceIsNotReconnectedToInALoop()
    {
        // Accepts and immediately closes, as a server at its connection limit or a dying proxy does.
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var accepted = 0;
        using var stop = new CancellationTokenSource();
        var acceptLoop = Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                using var socket = await listener.AcceptSocketAsync(stop.Token);
                Interlocked.Increment(ref accepted);
            }
        });

        await using (await Cluster.ConnectAsync($"memcached://127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}",
            new ClusterOptions
            {
                MaxConnectionsPerNode = 1,
                ReconnectBackoffMin = TimeSpan.FromMilliseconds(50),
                ReconnectBackoffMax = TimeSpan.FromSeconds(1),
            }))
        {
            // Backing off from 50 ms and doubling, a second allows about five attempts; without
            // backoff the client reconnects as fast as the loopback lets it (hundreds a second).
            await Task.Delay(TimeSpan.FromSeconds(1));
        }
        var attempts = Volatile.Read(ref accepted);
        stop.Cancel();
        await Record.ExceptionAsync(() => acceptLoop);

        Assert.InRange(attempts, 1, 15);
    }
}
