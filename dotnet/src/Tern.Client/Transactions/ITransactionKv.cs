namespace Tern.Client.Transactions;

/// <summary>
/// The key-value requests the transaction protocol is made of, one method per kind of request
/// the official SDKs send (each a sub-document lookup or mutation, or a plain KV write). The
/// attempt and cleanup logic speak only to this, so its tests can script every answer (a fake
/// in-memory store); <see cref="CollectionTransactionKv"/> sends the real requests. Methods throw
/// the SDK's typed exceptions (<see cref="Exceptions.CasMismatchException"/>,
/// <see cref="Exceptions.DurabilityAmbiguousException"/>, <see cref="Exceptions.PathExistsException"/>...),
/// which <see cref="ErrorClasses.Of"/> classifies.
/// </summary>
internal interface ITransactionKv
{
    /// <summary>Reads a document with its transaction links (AccessDeleted: tombstones too); null when it does not exist at all.</summary>
    ValueTask<TxnDocument?> GetAsync(DocId id, CancellationToken cancellationToken);

    /// <summary>Reads an ATR's entries and the server clock; null when the ATR does not exist.</summary>
    ValueTask<AtrDocument?> GetAtrAsync(DocId atr, CancellationToken cancellationToken);

    /// <summary>Adds the attempt's PENDING entry (creating the ATR if needed); PathExists when the entry is there already.</summary>
    ValueTask WriteAtrPendingAsync(DocId atr, AtrPendingWrite write, CancellationToken cancellationToken);

    /// <summary>
    /// Moves the entry to COMMITTED or ABORTED with the staged documents; for COMMITTED also adds
    /// the entry's <c>p</c> field (PathExists if cleanup or an earlier try of this write added it),
    /// and PathNotFound if the entry is gone.
    /// </summary>
    ValueTask WriteAtrOutcomeAsync(DocId atr, AtrOutcomeWrite write, CancellationToken cancellationToken);

    /// <summary>Removes the attempt's entry; with <paramref name="guardPending"/> first adds its <c>p</c> field, so a racing commit and this removal cannot both succeed.</summary>
    ValueTask RemoveAtrEntryAsync(DocId atr, string attemptId, bool guardPending, DurabilityLevel durability, CancellationToken cancellationToken);

    /// <summary>Stages an insert, replace or remove in the document's <c>txn</c> XATTR; returns the new CAS.</summary>
    ValueTask<ulong> StageAsync(DocId id, StageWrite write, CancellationToken cancellationToken);

    /// <summary>Removes the document's <c>txn</c> XATTR (with CAS), leaving the body as it is; returns the new CAS.</summary>
    ValueTask<ulong> UnlinkAsync(DocId id, UnlinkWrite write, CancellationToken cancellationToken);

    /// <summary>Makes a staged insert or replace the document's body and removes the links; returns the new CAS.</summary>
    ValueTask<ulong> CommitAsync(DocId id, CommitWrite write, CancellationToken cancellationToken);

    /// <summary>Deletes the document (a committed remove, or the rollback of an insert that became a live document).</summary>
    ValueTask RemoveAsync(DocId id, ulong cas, DurabilityLevel durability, CancellationToken cancellationToken);

    /// <summary>Whether the bucket can revive tombstones and copy an XATTR into the body (the <c>subdoc.ReviveDocument</c> capability).</summary>
    bool CanRevive(string bucket);
}

/// <summary>A PENDING entry: the transaction, when it expires (ms after the write), its durability.</summary>
internal sealed record AtrPendingWrite(string TransactionId, string AttemptId, long ExpiresAfterMs, DurabilityLevel Durability);

/// <summary>A COMMITTED or ABORTED entry, with the documents the attempt staged.</summary>
internal sealed record AtrOutcomeWrite(string AttemptId, AttemptState State, StagedDocs Docs, DurabilityLevel Durability);

/// <summary>The documents an attempt staged, by kind, as the ATR lists them (<c>ins</c>, <c>rep</c>, <c>rem</c>).</summary>
internal sealed record StagedDocs(IReadOnlyList<DocId> Inserted, IReadOnlyList<DocId> Replaced, IReadOnlyList<DocId> Removed);

/// <summary>
/// A staged change: the links (<c>txn</c> without its content), the content (JSON into
/// <c>op.stgd</c>, anything else into <c>op.bin</c>), the CAS it must meet (0: the document must not
/// exist), and the flags the server's extras carry.
/// </summary>
internal sealed record StageWrite(
    StagedType Type,
    ulong Cas,
    bool AccessDeleted,
    ReadOnlyMemory<byte> Links,
    ReadOnlyMemory<byte>? Content,
    bool Binary,
    uint? UserFlags,
    DurabilityLevel Durability);

/// <summary>Removing a document's links: with CAS, AccessDeleted for a tombstone, the flags to keep.</summary>
internal sealed record UnlinkWrite(ulong Cas, bool AccessDeleted, uint? UserFlags, DurabilityLevel Durability);

/// <summary>
/// Unstaging: from a tombstone (an insert) or a live document, with the body copied server-side
/// from the staged XATTR (<paramref name="BodyFromXattr"/>) or sent as <paramref name="Content"/>.
/// CAS 0 writes whatever the document's CAS is.
/// </summary>
internal sealed record CommitWrite(
    ulong Cas,
    bool FromTombstone,
    bool BodyFromXattr,
    ReadOnlyMemory<byte> Content,
    uint Flags,
    DurabilityLevel Durability)
{
    public bool Binary => (Flags & 0xff000000) != Transcoders.DocumentFlags.Json;
}
