using System.Buffers;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.IO;

/// <summary>
/// A connection offers an operation to its <see cref="IRetryStep"/> on a failed status and on a
/// connection failure, and never on success, on its deadline or on cancellation.
/// </summary>
public class RetryStepTests
{
    private static readonly TimeSpan Long = TimeSpan.FromMinutes(1);

    /// <summary>Records what it is offered; takes over according to the test's functions.</summary>
    private sealed class RecordingStep : IRetryStep
    {
        public Func<OperationBase, ResponseStatus, bool> TakeResponse { get; init; } = (_, _) => false;

        public Func<OperationBase, Exception, bool, bool> TakeFailure { get; init; } = (_, _, _) => false;

        public List<(ResponseStatus Status, int Attempt, int InFlight)> Responses { get; } = new();

        public List<(Exception Error, bool Sent)> Failures { get; } = new();

        public bool OnResponse(OperationBase operation, in FrameHeader header, in ReadOnlySequence<byte> body)
        {
            var status = (ResponseStatus)header.VBucketOrStatus;
            Responses.Add((status, operation.Attempts, ((Connection)operation.Attempt.Connection!).InFlight));
            return TakeResponse(operation, status);
        }

        public bool OnConnectionFailure(OperationBase operation, Exception error, bool sent)
        {
            Failures.Add((error, sent));
            return TakeFailure(operation, error, sent);
        }
    }

    [Fact]
    public async Task AStepThatTakesAFailedStatusSendsTheOperationAgainAndItsAnswerCompletesIt()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var (server, connection) = (direct.Server, direct.Connection);
        var step = new RecordingStep
        {
            TakeResponse = (operation, status) =>
            {
                if (status != ResponseStatus.Etmpfail || operation.Attempts > 1)
                    return false;
                Assert.True(connection.TryAcquireSlot());
                connection.Send(operation);
                return true;
            },
        };
        var operation = direct.NewGet("retried", Long);
        operation.RetryStep = step;
        direct.Send(operation);

        var first = Assert.Single(await server.ReceiveAsync(1));
        await server.RespondAsync(first, ResponseStatus.Etmpfail, value: "not this one");
        var second = Assert.Single(await server.ReceiveAsync(1));
        Assert.Equal("retried", second.Key);
        Assert.NotEqual(first.Opaque, second.Opaque);
        await server.RespondAsync(second, value: "this one");
        var response = await operation.AsValueTask();

        Assert.Equal((ResponseStatus.Success, "this one"), (response.Status, System.Text.Encoding.UTF8.GetString(response.Value)));
        // Offered once, as attempt 1, after it left the table; the success was not offered.
        Assert.Equal([(ResponseStatus.Etmpfail, 1, 0)], step.Responses);
        Assert.Equal(0, connection.InFlight);
    }

    [Fact]
    public async Task AStepThatDeclinesLeavesTheFailedStatusToTheCaller()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var step = new RecordingStep();
        var operation = direct.NewGet("declined", Long);
        operation.RetryStep = step;
        direct.Send(operation);

        await direct.Server.RespondAsync(Assert.Single(await direct.Server.ReceiveAsync(1)), ResponseStatus.Locked, value: "locked");
        var response = await operation.AsValueTask();

        Assert.Equal((ResponseStatus.Locked, "locked"), (response.Status, System.Text.Encoding.UTF8.GetString(response.Value)));
        Assert.Equal([(ResponseStatus.Locked, 1, 0)], step.Responses);
    }

    [Fact]
    public async Task AStepThatTakesAConnectionFailureCanSendTheOperationOnAnotherConnection()
    {
        await using var broken = await DirectConnection.OpenAsync();
        await using var spare = await DirectConnection.OpenAsync();
        var step = new RecordingStep
        {
            TakeFailure = (operation, _, _) =>
            {
                spare.Send(operation);
                return true;
            },
        };
        var operation = broken.NewGet("moved", Long);
        operation.RetryStep = step;
        broken.Send(operation);
        await broken.Server.ReceiveAsync(1);

        await broken.Server.DisconnectAsync();
        var resent = Assert.Single(await spare.Server.ReceiveAsync(1));
        await spare.Server.RespondAsync(resent, value: "from the spare");
        var response = await operation.AsValueTask();

        Assert.Equal("from the spare", System.Text.Encoding.UTF8.GetString(response.Value));
        var (error, sent) = Assert.Single(step.Failures);
        Assert.True(sent);
        Assert.Equal($"get of key '' failed: connection {broken.Connection.Name} is down (connection to " +
            $"127.0.0.1:{broken.Server.Port} was closed by the server); the request was sent", error.Message);
        Assert.Empty(step.Responses);
    }

    [Fact]
    public async Task AnOperationSentOnAFailedConnectionIsOfferedUnsentAndFailsWhenDeclined()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var connection = direct.Connection;
        var step = new RecordingStep();
        Assert.True(connection.TryAcquireSlot());
        connection.Fail(new IOException("dropped by the test"));
        var operation = direct.NewGet("late", Long);
        operation.RetryStep = step;

        connection.Send(operation);
        var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => operation.AsValueTask().AsTask());

        Assert.Equal($"get of key '' failed: connection {connection.Name} is down (dropped by the test); the request was not sent",
            error.Message);
        var offered = Assert.Single(step.Failures);
        Assert.Equal((error.Message, false), (offered.Error.Message, offered.Sent));
    }

    [Fact]
    public async Task DeadlinesAndCancellationEndAnOperationWithoutOfferingItToItsStep()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var step = new RecordingStep { TakeResponse = (_, _) => true, TakeFailure = (_, _, _) => true };
        using var cancellation = new CancellationTokenSource();
        var timed = direct.NewGet("timed", TimeSpan.FromSeconds(1));
        var cancelled = direct.NewGet("cancelled", Long, cancellation.Token);
        timed.RetryStep = cancelled.RetryStep = step;
        direct.Send(timed);
        direct.Send(cancelled);
        await direct.Server.ReceiveAsync(2);

        direct.Time.Advance(TimeSpan.FromSeconds(1));
        cancellation.Cancel();

        await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => timed.AsValueTask().AsTask());
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => cancelled.AsValueTask().AsTask());
        Assert.Empty(step.Responses);
        Assert.Empty(step.Failures);
    }
}
