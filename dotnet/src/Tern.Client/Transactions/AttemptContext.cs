using System.Buffers;
using Tern.Client.Exceptions;
using Tern.Client.Transcoders;

namespace Tern.Client.Transactions;

/// <summary>
/// One attempt of a transaction: what the lambda given to <see cref="Transactions.RunAsync"/> reads
/// and writes through. Writes are staged, not applied: an insert as a tombstone carrying the new
/// content, a replace or remove in the document's <c>txn</c> XATTR. The first write adds the
/// attempt, PENDING, to the ATR of its document's vbucket. Commit marks the entry COMMITTED (the
/// point of no return), then unstages each document and removes the entry; rollback marks it
/// ABORTED, removes the staged changes and the entry. Other transactions (of any SDK) never see
/// staged content before COMMITTED; this attempt reads its own writes.
///
/// Any operation that fails spoils the attempt: later operations and the commit fail with the
/// same error, and the transaction decides from it whether to roll back, retry with a new attempt,
/// or give up. A document that is missing (get) or present (insert) is an exception the lambda
/// may catch, and does not spoil the attempt.
/// </summary>
public sealed class AttemptContext
{
    private static readonly TimeSpan WriteWriteBudget = TimeSpan.FromSeconds(1);

    private readonly TransactionRun _run;
    private readonly StagedMutations _staged = new();
    private readonly SemaphoreSlim _gate = new(1, 1);
    private DocId? _atr;
    private bool _overtime;
    private TransactionOperationFailedException? _failure;

    internal AttemptContext(TransactionRun run)
    {
        _run = run;
        AttemptId = TransactionRun.NewId();
    }

    /// <summary>This attempt's id, as its ATR entry and its documents' links carry it.</summary>
    public string AttemptId { get; }

    /// <summary>The transaction's id, shared by all its attempts.</summary>
    public string TransactionId => _run.Id;

    internal AttemptState State { get; private set; } = AttemptState.NotStarted;

    /// <summary>The first operation failure of this attempt, if any: it decides the attempt's end.</summary>
    internal TransactionOperationFailedException? Failure => _failure;

    /// <summary>Whether commit got every document unstaged and the ATR entry removed.</summary>
    internal bool UnstagingComplete { get; private set; }

    /// <summary>The attempt's ATR, once its first write chose it.</summary>
    internal DocId? Atr => _atr;

    /// <summary>Reads a document; <see cref="DocumentNotFoundException"/> if it does not exist (for this transaction).</summary>
    public async Task<TransactionGetResult> GetAsync(Collection collection, string id) =>
        await GetOptionalAsync(collection, id).ConfigureAwait(false) ?? throw new DocumentNotFoundException(id);

    /// <summary>Reads a document; null if it does not exist (for this transaction).</summary>
    public Task<TransactionGetResult?> GetOptionalAsync(Collection collection, string id)
    {
        ArgumentNullException.ThrowIfNull(collection);
        ArgumentException.ThrowIfNullOrEmpty(id);
        return Guarded(() => GetLocked(DocIdOf(collection, id)));
    }

    /// <summary>Stages the creation of a document; <see cref="DocumentExistsException"/> if it exists.</summary>
    public Task<TransactionGetResult> InsertAsync<T>(Collection collection, string id, T content)
    {
        ArgumentNullException.ThrowIfNull(collection);
        ArgumentException.ThrowIfNullOrEmpty(id);
        var (bytes, flags) = Encode(content);
        return Guarded(() => InsertLocked(DocIdOf(collection, id), bytes, flags));
    }

    /// <summary>Stages new content for a document read in this transaction.</summary>
    public Task<TransactionGetResult> ReplaceAsync<T>(TransactionGetResult doc, T content)
    {
        ArgumentNullException.ThrowIfNull(doc);
        var (bytes, flags) = Encode(content);
        return Guarded(() => ReplaceLocked(doc, bytes, flags));
    }

    /// <summary>Stages the removal of a document read in this transaction.</summary>
    public Task RemoveAsync(TransactionGetResult doc)
    {
        ArgumentNullException.ThrowIfNull(doc);
        return Guarded(async () =>
        {
            await RemoveLocked(doc).ConfigureAwait(false);
            return true;
        });
    }

    // ---- operations -------------------------------------------------------------------------

    private async Task<TransactionGetResult?> GetLocked(DocId id)
    {
        CheckExpiryBeforeCommit("get", id);
        if (_staged.Find(id) is { } own)
        {
            // Read your own writes: what this attempt staged, with the CAS staging gave it.
            return own.Type == StagedType.Remove ? null : new TransactionGetResult(own.Document, own.Content, own.Flags, own.Cas, _run.Transcoder);
        }
        TxnDocument? doc;
        try
        {
            doc = await _run.Kv.GetAsync(id, default).ConfigureAwait(false);
        }
        catch (Exception error) when (error is not TransactionOperationFailedException)
        {
            throw ErrorClasses.Of(error) == ErrorClass.Transient
                ? Failed(ErrorClass.Transient, $"get of {id} failed", error).WithRetry()
                : Failed(ErrorClasses.Of(error), $"get of {id} failed", error);
        }
        if (doc is null)
            return null;
        var links = doc.Links;
        if (links?.AtrId is null || links.AttemptId is null)
            return doc.IsDeleted ? null : Committed(doc);
        CheckForwardCompat(links.ForwardCompat, "G", id);
        if (links.AttemptId == AttemptId)
            return links.Type == StagedType.Remove ? null : Staged(doc);

        // Another attempt's staged change shows only once its ATR entry says COMMITTED.
        var entry = await ReadBlockingEntry(links).ConfigureAwait(false);
        if (entry is not null)
            CheckForwardCompat(entry.ForwardCompat, "G_A", id);
        if (entry is not null && AttemptStates.ShowsStaged(entry.State))
            return links.Type == StagedType.Remove ? null : Staged(doc);
        return links.Type == StagedType.Insert || doc.IsDeleted ? null : Committed(doc);
    }

    private async Task<TransactionGetResult> InsertLocked(DocId id, ReadOnlyMemory<byte> content, uint flags)
    {
        if (_staged.Find(id) is { Type: StagedType.Insert or StagedType.Replace })
            throw new DocumentExistsException(id.Key);
        CheckExpiryBeforeCommit("insert", id);
        await BeginWriting(id).ConfigureAwait(false);
        if (_staged.Find(id) is { Type: StagedType.Remove } removed)
            return await StageReplace(removed.Document, removed.Cas, content, flags).ConfigureAwait(false);
        return await StageInsert(id, 0, content, flags, doc: null).ConfigureAwait(false);
    }

    private async Task<TransactionGetResult> ReplaceLocked(TransactionGetResult doc, ReadOnlyMemory<byte> content, uint flags)
    {
        var id = doc.Document.Id;
        var own = _staged.Find(id);
        if (own is { Type: StagedType.Remove })
            throw Failed(ErrorClass.DocNotFound, $"replace of {id}: this transaction removed it");
        CheckExpiryBeforeCommit("replace", id);
        await CheckWriteWriteConflict(doc.Document, "WW_RP").ConfigureAwait(false);
        await BeginWriting(id).ConfigureAwait(false);
        if (own is { Type: StagedType.Insert })
            return await StageInsert(id, doc.Cas, content, flags, doc.Document).ConfigureAwait(false);
        return await StageReplace(doc.Document, doc.Cas, content, flags).ConfigureAwait(false);
    }

    private async Task RemoveLocked(TransactionGetResult doc)
    {
        var id = doc.Document.Id;
        CheckExpiryBeforeCommit("remove", id);
        var own = _staged.Find(id);
        if (own is { Type: StagedType.Remove })
            throw Failed(ErrorClass.DocNotFound, $"remove of {id}: this transaction removed it already");
        if (own is { Type: StagedType.Insert })
        {
            await RemoveStagedInsert(own).ConfigureAwait(false);
            return;
        }
        await CheckWriteWriteConflict(doc.Document, "WW_RM").ConfigureAwait(false);
        await BeginWriting(id).ConfigureAwait(false);
        var links = Links(id, StagedType.Remove, 0, doc.Document.Metadata, binary: false);
        try
        {
            var cas = await _run.Kv.StageAsync(id, new StageWrite(StagedType.Remove, doc.Cas, doc.Document.IsDeleted, links, null, false,
                null, _run.Durability), default).ConfigureAwait(false);
            _staged.Set(new StagedMutation(id, StagedType.Remove, cas, ReadOnlyMemory<byte>.Empty, 0, doc.Document));
        }
        catch (Exception error) when (error is not TransactionOperationFailedException)
        {
            throw StagingFailure("remove", id, error);
        }
    }

    // ---- staging ----------------------------------------------------------------------------

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

    // ---- commit -----------------------------------------------------------------------------

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

    // ---- rollback ---------------------------------------------------------------------------

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

    // ---- helpers ----------------------------------------------------------------------------

    /// <summary>Runs one operation at a time, and records the failure that spoils the attempt.</summary>
    private async Task<T> Guarded<T>(Func<Task<T>> operation)
    {
        await _gate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_failure is not null)
                throw Failed(_failure.Class, $"an earlier operation of attempt {AttemptId} failed: {_failure.Message}", _failure);
            return await operation().ConfigureAwait(false);
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

    private void CheckExpiryBeforeCommit(string operation, DocId? id)
    {
        if (_run.HasExpired)
        {
            _overtime = true;
            throw Failed(ErrorClass.Expiry, $"transaction {_run.Id} expired ({_run.Timeout.TotalMilliseconds:0} ms) before {operation}" +
                (id is null ? "" : $" of {id}")).Expired();
        }
    }

    private void CheckExpiryInsideWrite(string operation, DocId id)
    {
        if (_run.HasExpired && !_overtime)
        {
            _overtime = true;
            throw Failed(ErrorClass.Expiry, $"transaction {_run.Id} expired ({_run.Timeout.TotalMilliseconds:0} ms) during {operation} of {id}")
                .Expired();
        }
    }

    private void CheckForwardCompat(ForwardCompat forwardCompat, string stage, DocId id)
    {
        if (forwardCompat.Check(stage) is not { } blocked)
            return;
        var failure = Failed(ErrorClass.Other, $"{id}: {blocked.Reason}");
        throw blocked.Retry ? failure.WithRetry() : failure;
    }

    private TransactionGetResult Committed(TxnDocument doc) => new(doc, doc.Body, doc.Flags, doc.Cas, _run.Transcoder);

    private TransactionGetResult Staged(TxnDocument doc)
    {
        var (content, flags) = doc.Links!.Staged ?? (doc.Body, doc.Flags);
        return new TransactionGetResult(doc, content, flags, doc.Cas, _run.Transcoder);
    }

    private ReadOnlyMemory<byte> Links(DocId id, StagedType type, uint flags, DocumentMetadata? restore, bool binary) =>
        Links(id, type, flags, restore, binary, out _);

    private ReadOnlyMemory<byte> Links(DocId id, StagedType type, uint flags, DocumentMetadata? restore, bool binary, out string operationId)
    {
        operationId = TransactionRun.NewId();
        return TxnJson.Links(_run.Id, AttemptId, operationId, _atr!.Value, type, flags, restore, binary);
    }

    private (ReadOnlyMemory<byte> Content, uint Flags) Encode<T>(T content)
    {
        var buffer = new ArrayBufferWriter<byte>();
        _run.Transcoder.Encode(buffer, content, out var flags, out _);
        return (buffer.WrittenMemory, flags);
    }

    private static bool IsBinary(uint flags) => (flags & 0xff000000) != DocumentFlags.Json;

    private static DocId DocIdOf(Collection collection, string id) =>
        new(new TransactionKeyspace(collection.BucketName, collection.ScopeName, collection.Name), id);

    private TransactionOperationFailedException Failed(ErrorClass errorClass, string message, Exception? cause = null) =>
        new(errorClass, $"transaction {_run.Id}: {message}", cause);
}
