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
public sealed partial class AttemptContext
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
