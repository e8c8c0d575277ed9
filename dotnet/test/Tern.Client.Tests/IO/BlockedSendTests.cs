using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>
/// A connection whose send loop is stuck in a socket send, because the server never reads, fails
/// every operation when it fails, each saying whether it was sent: the requests the loop had taken
/// count as sent (they may have reached the server), those still in the send buffer as not sent.
/// </summary>
public class BlockedSendTests
{
    private const int Taken = 32, Waiting = 16;

    [Fact]
    public async Task FailingWhileTheSendLoopIsBlockedFailsEveryOperationTakenAsSentAndTheRestAsNot()
    {
        // The fake server reads only when the test asks it to: here, never.
        await using var direct = await DirectConnection.OpenAsync();
        var connection = direct.Connection;
        var value = new byte[1024 * 1024];
        var sets = Enumerable.Range(0, Taken + Waiting).Select(i => RawOperation.Create(
            new RawRequest(Opcode.Set, Key: Encoding.UTF8.GetBytes($"set-{i:d2}"), Extras: new byte[8], Value: value),
            TimeSpan.FromMinutes(1), direct.Time, CancellationToken.None)).ToArray();
        foreach (var _ in sets)
            Assert.True(connection.TryAcquireSlot(), "the test's connection had no free slot");

        // 32 MB under one lock, so the send loop takes them in one piece: more than loopback holds
        // for a peer that never reads (a send buffer of at most tcp_wmem's 4 MB, and the receiver's
        // stays at its first size when nothing reads it), so that send never completes and the
        // loop takes nothing more. Counted before the send, so this wait needs no clock.
        connection.Send(sets.AsSpan(0, Taken));
        await Poll.Until(() => connection.SendCalls > 0, "the send loop never took the first 32 requests");
        foreach (var set in sets[Taken..])
            connection.Send(set);
        Assert.Equal(Taken + Waiting, connection.Requests);

        connection.Fail(new IOException("failed by the test"));

        var errors = await Task.WhenAll(sets.Select(set =>
            Assert.ThrowsAsync<ConnectionFailedException>(() => set.AsValueTask().AsTask().WaitAsync(TimeSpan.FromSeconds(30)))));
        Assert.All(errors[..Taken], error => Assert.EndsWith(
            "(failed by the test); the request was sent, so the change may or may not have been applied", error.Message));
        Assert.All(errors[Taken..], error => Assert.EndsWith("(failed by the test); the request was not sent", error.Message));
        Assert.Equal(0, connection.InFlight);
    }
}
