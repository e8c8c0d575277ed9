namespace Tern.Client.Transactions;

/// <summary>Commit: the COMMITTED entry (the point of no return, resolved when ambiguous), unstaging, the entry removed.</summary>
public sealed partial class AttemptContext
{
    internal async Task CommitAsync()
    {
        await _gate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_failure is not null)
                throw _failure;
            CheckExpiryBeforeCommit("commit", null);
            if (State == AttemptState.NotStarted)
            {
                State = AttemptState.Completed;
                UnstagingComplete = true;
                return;
            }
            await WriteCommitted().ConfigureAwait(false);
            State = AttemptState.Committed;
            if (_run.AfterCommitPoint is { } hook)
                await hook().ConfigureAwait(false);
            var unstaged = await UnstageAll().ConfigureAwait(false);
            if (unstaged && await RemoveEntryAfterCommit().ConfigureAwait(false))
            {
                State = AttemptState.Completed;
                UnstagingComplete = true;
            }
            else
            {
                _run.Cleanup.Queue(_atr!.Value, AttemptId);
            }
        }
        catch (TransactionOperationFailedException failure)
        {
            _failure ??= failure;
            throw;
        }
        finally
        {
            _gate.Release();
        }
    }

    private async Task WriteCommitted()
    {
        var atr = _atr!.Value;
        var ambiguous = false;
        for (var retry = 0; ; retry++)
        {
            if (_run.HasExpired && !_overtime)
            {
                _overtime = true;
                var expired = Failed(ErrorClass.Expiry, $"transaction {_run.Id} expired before its commit was recorded").NoRollback();
                throw ambiguous ? expired.Ambiguous() : expired.Expired();
            }
            try
            {
                await _run.Kv.WriteAtrOutcomeAsync(atr, new AtrOutcomeWrite(AttemptId, AttemptState.Committed, _staged.ToDocs(), _run.Durability),
                    default).ConfigureAwait(false);
                return;
            }
            catch (Exception error) when (error is not TransactionOperationFailedException)
            {
                var errorClass = ErrorClasses.Of(error);
                var failure = Failed(errorClass, $"recording the commit in ATR {atr} failed", error);
                if (ambiguous)
                    failure = failure.Ambiguous();
                switch (errorClass)
                {
                    case ErrorClass.Ambiguous:
                        ambiguous = true;
                        await _run.DelayAsync(TimeSpan.FromMilliseconds(3)).ConfigureAwait(false);
                        continue;
                    case ErrorClass.Transient when ambiguous:
                        await _run.DelayAsync(TimeSpan.FromMilliseconds(3)).ConfigureAwait(false);
                        continue;
                    case ErrorClass.Transient:
                        throw failure.WithRetry();
                    case ErrorClass.PathAlreadyExists:
                        if (await CommitLanded(atr, ambiguous).ConfigureAwait(false))
                            return;
                        throw Failed(ErrorClass.Other, $"ATR {atr}: the attempt was aborted by another client").WithRetry();
                    case ErrorClass.Hard or ErrorClass.DocNotFound or ErrorClass.PathNotFound or ErrorClass.AtrFull:
                        throw failure.NoRollback();
                    default:
                        throw ambiguous ? failure.NoRollback() : failure;
                }
            }
        }
    }

    /// <summary>
    /// The commit write met an entry whose <c>p</c> is set: our own earlier try landed, or cleanup
    /// claimed the entry. The state says which.
    /// </summary>
    private async Task<bool> CommitLanded(DocId atr, bool ambiguous)
    {
        for (var retry = 0; ; retry++)
        {
            AtrEntry? entry;
            try
            {
                entry = (await _run.Kv.GetAtrAsync(atr, default).ConfigureAwait(false))?.Find(AttemptId);
            }
            catch (Exception error) when (ErrorClasses.Of(error) is ErrorClass.Transient or ErrorClass.Other && !_run.HasExpired)
            {
                await _run.DelayAsync(TimeSpan.FromMilliseconds(3)).ConfigureAwait(false);
                continue;
            }
            catch (Exception error)
            {
                throw Failed(ErrorClasses.Of(error), $"resolving the commit in ATR {atr} failed", error).NoRollback().Ambiguous();
            }
            return entry?.State switch
            {
                AttemptState.Committed => true,
                AttemptState.Aborted => false,
                _ => throw (ambiguous
                    ? Failed(ErrorClass.Other, $"ATR {atr}: the commit's outcome is unknown").NoRollback().Ambiguous()
                    : Failed(ErrorClass.Other, $"ATR {atr}: the entry is {(entry is null ? "gone" : AttemptStates.Name(entry.State))} at commit").NoRollback()),
            };
        }
    }

    /// <summary>Unstages every document at once; false when one could not be (cleanup finishes it).</summary>
    private async Task<bool> UnstageAll()
    {
        var canRevive = _atr is { } atr && _run.Kv.CanRevive(atr.Keyspace.Bucket);
        var results = await Task.WhenAll(_staged.All.Select(mutation => Unstage(mutation, canRevive))).ConfigureAwait(false);
        return results.All(done => done);
    }

    private async Task<bool> Unstage(StagedMutation mutation, bool canRevive)
    {
        var cas = mutation.Cas;
        var ambiguous = false;
        var lastTry = false;
        for (var retry = 0; retry < 100; retry++)
        {
            if (_run.HasExpired)
            {
                if (lastTry)
                    return false;
                lastTry = true; // past its time, a transaction gets one more try at each document
            }
            try
            {
                if (mutation.Type == StagedType.Remove)
                    await _run.Kv.RemoveAsync(mutation.Id, 0, _run.Durability, default).ConfigureAwait(false);
                else
                    await _run.Kv.CommitAsync(mutation.Id, new CommitWrite(cas, mutation.Type == StagedType.Insert && cas != 0,
                        canRevive, mutation.Content, mutation.Flags, _run.Durability), default).ConfigureAwait(false);
                return true;
            }
            catch (Exception error)
            {
                switch (ErrorClasses.Of(error))
                {
                    case ErrorClass.Ambiguous or ErrorClass.Transient:
                        ambiguous = true;
                        break;
                    case ErrorClass.DocNotFound when mutation.Type == StagedType.Remove:
                        return true;
                    case ErrorClass.CasMismatch or ErrorClass.DocAlreadyExists when !ambiguous:
                        // Someone touched the document without a transaction: commit over it, as the official SDKs do.
                        ambiguous = ErrorClasses.Of(error) == ErrorClass.DocAlreadyExists;
                        cas = 0;
                        break;
                    default:
                        return false;
                }
            }
            await _run.DelayAsync(TimeSpan.FromMilliseconds(3)).ConfigureAwait(false);
        }
        return false;
    }

    private async Task<bool> RemoveEntryAfterCommit()
    {
        try
        {
            await _run.Kv.RemoveAtrEntryAsync(_atr!.Value, AttemptId, guardPending: false, _run.Durability, default).ConfigureAwait(false);
            return true;
        }
        catch (Exception)
        {
            return false; // the transaction committed; cleanup removes the entry
        }
    }
}
