namespace Tern.Client.Transactions;

/// <summary>Rollback: the ABORTED entry, every staged change removed, the entry removed.</summary>
public sealed partial class AttemptContext
{
    /// <summary>Undoes every staged change and removes the ATR entry; throws a no-rollback failure if it cannot.</summary>
    internal async Task RollbackAsync()
    {
        await _gate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (State is AttemptState.NotStarted or AttemptState.RolledBack)
            {
                State = AttemptState.RolledBack;
                return;
            }
            if (State is AttemptState.Committed or AttemptState.Completed)
                throw Failed(ErrorClass.Other, "a committed attempt cannot be rolled back").NoRollback();
            var atr = _atr!.Value;
            await RetryRollbackStep($"aborting in ATR {atr}", () => _run.Kv.WriteAtrOutcomeAsync(atr,
                new AtrOutcomeWrite(AttemptId, AttemptState.Aborted, _staged.ToDocs(), _run.Durability), default), doneIfMissing: false)
                .ConfigureAwait(false);
            State = AttemptState.Aborted;
            foreach (var mutation in _staged.All)
            {
                await RetryRollbackStep($"rolling back {mutation.Id}", () => UnlinkOnly(mutation), doneIfMissing: true)
                    .ConfigureAwait(false);
            }
            await RetryRollbackStep($"removing the entry from ATR {atr}",
                () => _run.Kv.RemoveAtrEntryAsync(atr, AttemptId, guardPending: false, _run.Durability, default), doneIfMissing: true)
                .ConfigureAwait(false);
            State = AttemptState.RolledBack;
        }
        finally
        {
            _gate.Release();
        }
    }

    private async ValueTask UnlinkOnly(StagedMutation mutation) =>
        await _run.Kv.UnlinkAsync(mutation.Id, new UnlinkWrite(mutation.Cas, mutation.Type == StagedType.Insert, null, _run.Durability),
            default).ConfigureAwait(false);

    private async Task RetryRollbackStep(string what, Func<ValueTask> step, bool doneIfMissing)
    {
        for (var retry = 0; ; retry++)
        {
            if (_run.HasExpired)
            {
                if (_overtime)
                    throw Failed(ErrorClass.Expiry, $"{what}: transaction {_run.Id} expired during rollback").NoRollback().Expired();
                _overtime = true;
            }
            try
            {
                await step().ConfigureAwait(false);
                return;
            }
            catch (Exception error)
            {
                var errorClass = ErrorClasses.Of(error);
                if (doneIfMissing && errorClass is ErrorClass.PathNotFound or ErrorClass.DocNotFound)
                    return;
                if (errorClass is ErrorClass.Hard or ErrorClass.CasMismatch or ErrorClass.PathNotFound or ErrorClass.DocNotFound
                    or ErrorClass.AtrFull || retry >= 100)
                    throw Failed(errorClass, $"{what} failed", error).NoRollback();
            }
            await _run.DelayAsync(TransactionRun.Backoff(TimeSpan.FromMilliseconds(1), TimeSpan.FromMilliseconds(100), retry))
                .ConfigureAwait(false);
        }
    }
}
