using Tern.Client.Exceptions;

namespace Tern.Client.Transactions;

/// <summary>Staging: the PENDING entry, the staged insert, replace and remove, and waiting for another attempt in the way.</summary>
public sealed partial class AttemptContext
{
    private async Task<TransactionGetResult> StageInsert(DocId id, ulong cas, ReadOnlyMemory<byte> content, uint flags, TxnDocument? doc)
    {
        var binary = IsBinary(flags);
        var links = Links(id, StagedType.Insert, flags, null, binary, out var operationId);
        for (var retry = 0; ; retry++)
        {
            CheckExpiryInsideWrite("insert", id);
            try
            {
                var staged = await _run.Kv.StageAsync(id, new StageWrite(StagedType.Insert, cas, true, links, content, binary, flags,
                    _run.Durability), default).ConfigureAwait(false);
                return Record(id, StagedType.Insert, staged, content, flags, doc);
            }
            catch (Exception error) when (error is not TransactionOperationFailedException and not DocumentExistsException)
            {
                var errorClass = ErrorClasses.Of(error);
                switch (errorClass)
                {
                    case ErrorClass.Ambiguous:
                        await _run.DelayAsync(TransactionRun.Backoff(TimeSpan.FromMilliseconds(5), TimeSpan.FromMilliseconds(300), retry))
                            .ConfigureAwait(false);
                        continue;
                    case ErrorClass.Transient:
                        throw Failed(errorClass, $"insert of {id} failed", error).WithRetry();
                    case ErrorClass.Hard:
                        throw Failed(errorClass, $"insert of {id} failed", error).NoRollback();
                    case ErrorClass.DocAlreadyExists or ErrorClass.CasMismatch:
                        break;
                    default:
                        throw Failed(errorClass, $"insert of {id} failed", error);
                }
            }
            catch (DocumentExistsException)
            {
            }
            // The document is there: a plain tombstone may be overwritten, another transaction's
            // staged insert only once that transaction is done, anything else is the caller's error.
            var existing = await ReadForInsert(id).ConfigureAwait(false);
            CheckForwardCompat(existing.Links?.ForwardCompat ?? ForwardCompat.None, "WW_IG", id);
            var links2 = existing.Links;
            if (existing.IsDeleted && links2?.AtrId is null)
            {
                cas = existing.Cas;
                continue;
            }
            if (links2?.AttemptId is null)
                throw new DocumentExistsException(id.Key);
            if (links2.AttemptId == AttemptId)
            {
                if (links2.OperationId == operationId)
                    return Record(id, StagedType.Insert, existing.Cas, content, flags, doc); // an ambiguous write of ours that landed
                throw Failed(ErrorClass.Other, $"insert of {id}: another operation of this attempt changed it concurrently");
            }
            if (links2.Type != StagedType.Insert)
                throw new DocumentExistsException(id.Key);
            await CheckWriteWriteConflict(existing, "WW_I").ConfigureAwait(false);
            cas = existing.Cas;
            await _run.DelayAsync(TransactionRun.Backoff(TimeSpan.FromMilliseconds(5), TimeSpan.FromMilliseconds(300), retry))
                .ConfigureAwait(false);
        }
    }

    private async Task<TxnDocument> ReadForInsert(DocId id)
    {
        try
        {
            return await _run.Kv.GetAsync(id, default).ConfigureAwait(false)
                ?? throw Failed(ErrorClass.DocNotFound, $"insert of {id}: it existed, then vanished").WithRetry();
        }
        catch (Exception error) when (error is not TransactionOperationFailedException)
        {
            var failure = Failed(ErrorClasses.Of(error), $"insert of {id}: reading the existing document failed", error);
            throw ErrorClasses.Of(error) is ErrorClass.Transient or ErrorClass.DocNotFound ? failure.WithRetry() : failure;
        }
    }

    private async Task<TransactionGetResult> StageReplace(TxnDocument doc, ulong cas, ReadOnlyMemory<byte> content, uint flags)
    {
        var id = doc.Id;
        var binary = IsBinary(flags);
        var links = Links(id, StagedType.Replace, flags, doc.Metadata, binary);
        try
        {
            var staged = await _run.Kv.StageAsync(id, new StageWrite(StagedType.Replace, cas, true, links, content, binary, doc.Flags,
                _run.Durability), default).ConfigureAwait(false);
            return Record(id, StagedType.Replace, staged, content, flags, doc);
        }
        catch (Exception error) when (error is not TransactionOperationFailedException)
        {
            throw StagingFailure("replace", id, error);
        }
    }

    private async Task RemoveStagedInsert(StagedMutation insert)
    {
        CheckExpiryInsideWrite("remove", insert.Id);
        try
        {
            await _run.Kv.UnlinkAsync(insert.Id, new UnlinkWrite(0, true, null, _run.Durability), default).ConfigureAwait(false);
            _staged.Remove(insert.Id);
        }
        catch (Exception error) when (error is not TransactionOperationFailedException)
        {
            var failure = Failed(ErrorClasses.Of(error), $"remove of {insert.Id} (staged by this transaction) failed", error);
            throw ErrorClasses.Of(error) == ErrorClass.Hard ? failure.NoRollback() : failure.WithRetry();
        }
    }

    private TransactionGetResult Record(DocId id, StagedType type, ulong cas, ReadOnlyMemory<byte> content, uint flags, TxnDocument? doc)
    {
        doc ??= new TxnDocument(id, cas, true, ReadOnlyMemory<byte>.Empty, flags, null, DocumentMetadata.None);
        _staged.Set(new StagedMutation(id, type, cas, content, flags, doc));
        return new TransactionGetResult(doc, content, flags, cas, _run.Transcoder);
    }

    private TransactionOperationFailedException StagingFailure(string operation, DocId id, Exception error)
    {
        var errorClass = ErrorClasses.Of(error);
        var failure = Failed(errorClass, $"{operation} of {id} failed", error);
        return errorClass switch
        {
            ErrorClass.DocNotFound or ErrorClass.DocAlreadyExists or ErrorClass.CasMismatch or ErrorClass.Transient or ErrorClass.Ambiguous =>
                failure.WithRetry(),
            ErrorClass.Hard => failure.NoRollback(),
            _ => failure,
        };
    }

    /// <summary>Chooses the ATR (first write only) and adds the PENDING entry.</summary>
    private async Task BeginWriting(DocId first)
    {
        if (State != AttemptState.NotStarted)
            return;
        var keyspace = _run.MetadataCollection ?? new TransactionKeyspace(first.Keyspace.Bucket);
        var atr = new DocId(keyspace, AtrIds.ForKey(first.Key));
        _atr = atr;
        _run.Cleanup.Watch(keyspace);
        var expiresAfter = (long)_run.Remaining.TotalMilliseconds;
        for (var retry = 0; ; retry++)
        {
            CheckExpiryInsideWrite("the ATR's PENDING entry", atr);
            try
            {
                await _run.Kv.WriteAtrPendingAsync(atr, new AtrPendingWrite(_run.Id, AttemptId, expiresAfter, _run.Durability), default)
                    .ConfigureAwait(false);
                break;
            }
            catch (Exception error) when (error is not TransactionOperationFailedException)
            {
                var errorClass = ErrorClasses.Of(error);
                if (errorClass == ErrorClass.PathAlreadyExists)
                    break; // an earlier, ambiguous try of this write landed
                if (errorClass == ErrorClass.Ambiguous)
                {
                    await _run.DelayAsync(TimeSpan.FromMilliseconds(1)).ConfigureAwait(false);
                    continue;
                }
                var failure = Failed(errorClass, $"adding the attempt to ATR {atr} failed", error);
                throw errorClass switch
                {
                    ErrorClass.Transient => failure.WithRetry(),
                    ErrorClass.Hard => failure.NoRollback(),
                    _ => failure,
                };
            }
        }
        State = AttemptState.Pending;
    }

    /// <summary>
    /// Waits (up to 1 s, backing off) for the attempt that has staged a change in
    /// <paramref name="doc"/> to finish; if it does not, this attempt retries from the start.
    /// </summary>
    private async Task CheckWriteWriteConflict(TxnDocument doc, string stage)
    {
        var links = doc.Links;
        if (links?.AttemptId is null || links.TransactionId == _run.Id || links.Atr is null)
            return;
        CheckForwardCompat(links.ForwardCompat, stage, doc.Id);
        var started = _run.Time.GetTimestamp();
        for (var retry = 0; ; retry++)
        {
            var entry = await ReadBlockingEntry(links, conflict: true).ConfigureAwait(false);
            if (entry is null)
                return;
            CheckForwardCompat(entry.ForwardCompat, "WW_R", doc.Id);
            if (entry.State is AttemptState.Completed or AttemptState.RolledBack)
                return;
            if (_run.Time.GetElapsedTime(started) >= WriteWriteBudget)
                throw Failed(ErrorClass.WriteWriteConflict,
                    $"{doc.Id} is being changed by transaction {links.TransactionId} (attempt {links.AttemptId}, {AttemptStates.Name(entry.State)})")
                    .WithRetry();
            await _run.DelayAsync(TransactionRun.Backoff(TimeSpan.FromMilliseconds(50), TimeSpan.FromMilliseconds(500), retry))
                .ConfigureAwait(false);
        }
    }

    /// <summary>The ATR entry of the attempt named by <paramref name="links"/>; null when the ATR or the entry is gone.</summary>
    private async Task<AtrEntry?> ReadBlockingEntry(TxnLinks links, bool conflict = false)
    {
        try
        {
            var atr = await _run.Kv.GetAtrAsync(links.Atr!.Value, default).ConfigureAwait(false);
            return atr?.Find(links.AttemptId!);
        }
        catch (Exception error) when (error is not TransactionOperationFailedException)
        {
            var errorClass = conflict ? ErrorClass.WriteWriteConflict : ErrorClasses.Of(error);
            throw Failed(errorClass, $"reading ATR {links.Atr} of attempt {links.AttemptId} failed", error).WithRetry();
        }
    }
}
