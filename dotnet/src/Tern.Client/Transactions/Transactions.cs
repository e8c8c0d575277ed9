using Microsoft.Extensions.Logging;
using Tern.Client.Exceptions;

namespace Tern.Client.Transactions;

/// <summary>
/// Distributed ACID transactions over KV and sub-document, in the protocol every official Couchbase
/// SDK speaks (Active Transaction Records, staged content in the <c>txn</c> XATTR, lost-attempt
/// cleanup), so a transaction here and one in another SDK see each other's staged writes and wait
/// for each other. <c>cluster.Transactions.RunAsync(async ctx => { ... })</c> runs the lambda in an
/// attempt; when the attempt meets a conflict or a transient error it is rolled back and the lambda
/// runs again (with back-off) until it commits or the transaction expires
/// (<see cref="TransactionsConfig.ExpirationTime"/>). The lambda may therefore run several times:
/// keep its side effects inside the context.
/// </summary>
public sealed class Transactions : IAsyncDisposable
{
    private readonly TransactionsConfig _config;
    private readonly ClusterOptions _options;
    private readonly ITransactionKv _kv;
    private readonly TransactionsCleanup _cleanup;
    private readonly ILogger _logger;

    internal Transactions(TransactionsConfig config, ClusterOptions options, ITransactionKv kv, ICleanupKv cleanupKv)
    {
        _config = config;
        _options = options;
        _kv = kv;
        _logger = options.LoggerFactory.CreateLogger("Tern.Client.Transactions");
        _cleanup = new TransactionsCleanup(config, kv, cleanupKv, options.TimeProvider, _logger);
    }

    /// <summary>
    /// Runs <paramref name="logic"/> as one transaction and commits it. Returns when the commit point
    /// is passed (<see cref="TransactionResult.UnstagingComplete"/> false: a document is still being
    /// unstaged, which cleanup finishes; readers in transactions already see the new content).
    /// Throws <see cref="TransactionFailedException"/> (nothing was committed; the cause is inside,
    /// e.g. the lambda's own exception), <see cref="TransactionExpiredException"/> or
    /// <see cref="TransactionCommitAmbiguousException"/>.
    /// </summary>
    public async Task<TransactionResult> RunAsync(Func<AttemptContext, Task> logic, TransactionOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(logic);
        var timeout = options?.Timeout ?? _config.ExpirationTime;
        if (timeout <= TimeSpan.Zero)
            throw new InvalidArgumentException($"a transaction's timeout is {timeout.TotalMilliseconds:0} ms; it must be more than 0");
        var run = new TransactionRun(TransactionRun.NewId(), timeout,
            options?.DurabilityLevel ?? _config.DurabilityLevel, options?.MetadataCollection ?? _config.MetadataCollection, _kv, _cleanup,
            _options.Transcoder, _options.TimeProvider, _config.AfterCommitPointHook);
        if (run.MetadataCollection is { } metadata)
            _cleanup.Watch(metadata);
        for (var attemptNumber = 0; ; attemptNumber++)
        {
            var attempt = new AttemptContext(run);
            TransactionOperationFailedException? failure;
            try
            {
                await logic(attempt).ConfigureAwait(false);
                failure = attempt.Failure;
            }
            catch (Exception error)
            {
                // An operation failure the lambda let through (or caught and rethrew wrapped) decides
                // the attempt; anything else is the application's own error: roll back and report it.
                failure = attempt.Failure ?? error as TransactionOperationFailedException;
                if (failure is null)
                {
                    await RollbackQuietly(attempt).ConfigureAwait(false);
                    throw new TransactionFailedException($"transaction {run.Id} failed: the lambda threw {error.GetType().Name}: {error.Message}",
                        run.Id, error);
                }
            }
            if (failure is null)
            {
                try
                {
                    await attempt.CommitAsync().ConfigureAwait(false);
                    return new TransactionResult(run.Id, attempt.UnstagingComplete);
                }
                catch (TransactionOperationFailedException commitFailure)
                {
                    failure = commitFailure;
                }
            }
            if (failure.Rollback)
            {
                try
                {
                    await attempt.RollbackAsync().ConfigureAwait(false);
                }
                catch (TransactionOperationFailedException rollbackFailure)
                {
                    _logger.LogDebug(rollbackFailure, "transaction {Id}: rollback of attempt {Attempt} failed", run.Id, attempt.AttemptId);
                    QueueForCleanup(attempt);
                    throw Final(run, failure.Retry && run.HasExpired ? failure.Expired() : failure);
                }
            }
            else
            {
                QueueForCleanup(attempt);
            }
            if (!failure.Retry)
                throw Final(run, failure);
            if (run.HasExpired)
                throw Final(run, failure.Expired());
            await run.DelayAsync(TransactionRun.Backoff(TimeSpan.FromMilliseconds(1), TimeSpan.FromMilliseconds(100), attemptNumber))
                .ConfigureAwait(false);
        }
    }

    /// <summary>Stops the cleanup, finishes this process's unfinished attempts (when configured) and removes the client record.</summary>
    public ValueTask DisposeAsync() => _cleanup.DisposeAsync();

    private void QueueForCleanup(AttemptContext attempt)
    {
        if (attempt.Atr is { } atr && attempt.State is not (AttemptState.NotStarted or AttemptState.Completed or AttemptState.RolledBack))
            _cleanup.Queue(atr, attempt.AttemptId);
    }

    private async Task RollbackQuietly(AttemptContext attempt)
    {
        try
        {
            await attempt.RollbackAsync().ConfigureAwait(false);
        }
        catch (TransactionOperationFailedException failure)
        {
            _logger.LogDebug(failure, "transaction: rollback of attempt {Attempt} failed; cleanup finishes it", attempt.AttemptId);
            QueueForCleanup(attempt);
        }
    }

    private static TransactionFailedException Final(TransactionRun run, TransactionOperationFailedException failure)
    {
        var cause = failure.InnerException ?? failure;
        return failure.Raise switch
        {
            FinalError.Expired => new TransactionExpiredException($"transaction {run.Id} expired: {failure.Message}", run.Id, cause),
            FinalError.Ambiguous => new TransactionCommitAmbiguousException(
                $"transaction {run.Id}: whether it committed is unknown: {failure.Message}", run.Id, cause),
            _ => new TransactionFailedException($"transaction {run.Id} failed: {failure.Message}", run.Id, cause),
        };
    }
}
