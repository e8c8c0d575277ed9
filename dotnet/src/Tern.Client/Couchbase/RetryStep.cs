using System.Buffers;
using Microsoft.Extensions.Logging;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Timing;

namespace Tern.Client.Couchbase;

/// <summary>
/// What a couchbase:// operation does after a failed attempt, decided from the server's error map:
/// NotMyVbucket applies the map in the body and routes again; UnknownCollection looks the id up
/// once more and resends; statuses whose attrs say retry-now, retry-later, auto-retry,
/// item-locked or temp are sent again after a backoff (1, 10, 50, 100, then 500 ms; retry-now
/// skips the wait the first time only, so a status that persists never becomes a busy loop). An attempt
/// that never reached the server, or a read whose connection failed, is sent again too. A
/// mutation that may have reached the server is never sent twice. Every retry stays inside the
/// operation's deadline; when the deadline comes first the operation fails with a timeout that
/// counts the retries and names their reasons.
/// </summary>
internal sealed class RetryStep(BucketTopology topology, TimeProvider time, ILogger logger) : IRetryStep
{
    private const ErrorAttributes Retryable =
        ErrorAttributes.RetryNow | ErrorAttributes.RetryLater | ErrorAttributes.AutoRetry | ErrorAttributes.ItemLocked | ErrorAttributes.Temp;

    private static readonly TimeSpan[] Backoff =
        [TimeSpan.FromMilliseconds(1), TimeSpan.FromMilliseconds(10), TimeSpan.FromMilliseconds(50), TimeSpan.FromMilliseconds(100), TimeSpan.FromMilliseconds(500)];

    public bool OnResponse(OperationBase operation, in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        var status = (ResponseStatus)header.VBucketOrStatus;
        var connection = operation.Attempt.Connection;
        switch (status)
        {
            case ResponseStatus.NotMyVbucket:
            {
                var value = body.Slice(header.FramingExtrasLength + header.ExtrasLength + header.KeyLength);
                // A newer map was applied: the next attempt goes elsewhere at once. Otherwise back off
                // until a poll or a push brings one.
                var applied = value.Length > 0 && connection is not null && topology.Offer(value.ToArray(), connection.Endpoint, "not-my-vbucket answer");
                return Retry(operation, "not_my_vbucket", applied ? TimeSpan.Zero : (TimeSpan?)null);
            }
            case ResponseStatus.UnknownCollection when operation.Keyspace is Keyspace keyspace:
            {
                var log = operation.Retries ??= new RetryLog();
                if (log.CollectionRefreshed)
                    return false;
                log.CollectionRefreshed = true;
                log.Add("unknown_collection");
                _ = RefreshThenResendAsync(operation, keyspace);
                return true;
            }
        }
        // UNLOCK answers Locked when its CAS does not hold the lock: retrying cannot change that.
        if (status == ResponseStatus.Locked && operation.Opcode == Opcode.UnlockKey)
            return false;
        var map = connection?.ErrorMap ?? ErrorMap.Default;
        var attributes = map.AttributesOf((ushort)status);
        if ((attributes & Retryable) == 0)
            return false;
        var reason = map.NameOf((ushort)status)?.ToLowerInvariant() ?? $"status_0x{(ushort)status:x2}";
        var now = (attributes & ErrorAttributes.RetryNow) != 0 && (operation.Retries?.CountOf(reason) ?? 0) == 0;
        return Retry(operation, reason, now ? TimeSpan.Zero : null);
    }

    public bool OnConnectionFailure(OperationBase operation, Exception error, bool sent)
    {
        if (sent && operation.IsMutation)
            return false; // it may have been applied: sending it again could apply it twice
        if (topology.Dispatcher.IsFaulted)
            return false; // the bucket was closed: nowhere to send it
        return Retry(operation, sent ? "socket_closed_while_in_flight" : "socket_not_available", null);
    }

    /// <summary>Schedules the next attempt, or fails the operation when its deadline comes first.</summary>
    private bool Retry(OperationBase operation, string reason, TimeSpan? delay)
    {
        var log = operation.Retries ??= new RetryLog();
        log.Add(reason);
        var wait = delay ?? Backoff[Math.Min(log.Count - 1, Backoff.Length - 1)];
        var remaining = time.Until(operation.DeadlineTimestamp);
        if (remaining <= TimeSpan.Zero)
        {
            operation.Fail(Timeouts.RetriesExhausted(operation));
            return true;
        }
        if (wait <= TimeSpan.Zero)
        {
            ThreadPool.UnsafeQueueUserWorkItem(static state => state.step.Resend(state.operation), (step: this, operation), preferLocal: false);
            return true;
        }
        log.Timer?.Dispose();
        log.StartWaiting();
        using (ExecutionContext.SuppressFlow())
            log.Timer = time.CreateTimer(static state =>
            {
                // The log, not operation.Retries: if cancellation ended the wait, the operation
                // may already be back in its pool, serving another caller.
                var (step, operation, waiting) = ((RetryStep, OperationBase, RetryLog))state!;
                if (!waiting.TryEndWaiting())
                    return;
                waiting.Timer?.Dispose();
                step.Resend(operation);
            }, (this, operation, log), wait < remaining ? wait : remaining, Timeout.InfiniteTimeSpan);
        return true;
    }

    private void Resend(OperationBase operation)
    {
        if (time.Until(operation.DeadlineTimestamp) <= TimeSpan.Zero)
        {
            operation.Fail(Timeouts.RetriesExhausted(operation));
            return;
        }
        if (operation.CancellationToken.IsCancellationRequested)
        {
            operation.Fail(new OperationCanceledException(operation.CancellationToken));
            return;
        }
        logger.LogDebug("retrying {Operation} of key {Key} ({Reasons})", operation.Opcode.Name(), operation.Key, operation.Retries?.Describe());
        topology.Dispatcher.Resend(operation);
    }

    private async Task RefreshThenResendAsync(OperationBase operation, Keyspace keyspace)
    {
        try
        {
            var id = await keyspace.RefreshAsync(operation).ConfigureAwait(false);
            operation.Request.ChangeCollectionPrefix(id);
            Resend(operation);
        }
        catch (Exception e)
        {
            operation.Fail(e);
        }
    }
}
