namespace Tern.Client.Transactions;

/// <summary>
/// Finishes one attempt from its ATR entry, as every SDK's cleanup does: a COMMITTED attempt's
/// documents are unstaged (their staged content becomes the body), an ABORTED one's staged changes
/// are removed, a PENDING one is simply forgotten (its staged changes never show, and writers step
/// over them), and then the entry is removed. A document is touched only while it still carries
/// this attempt's links, and, for a commit, while its body is the one the attempt staged over (its
/// CRC matches the staging's): otherwise the world has moved on. Any other failure leaves the
/// entry for a later pass.
/// </summary>
internal sealed class AttemptCleaner(ITransactionKv kv, DurabilityLevel defaultDurability)
{
    /// <summary>Cleanup leaves an attempt alone until this long past its expiry, for clock differences.</summary>
    public static readonly TimeSpan SafetyMargin = TimeSpan.FromMilliseconds(1500);

    /// <summary>
    /// Cleans <paramref name="entry"/>; with <paramref name="onlyIfExpired"/> (lost attempts) only once
    /// it has expired by the server's clock <paramref name="nowMs"/>. Returns whether it was cleaned.
    /// </summary>
    public async Task<bool> CleanAsync(DocId atr, AtrEntry entry, bool onlyIfExpired, long nowMs, CancellationToken cancellationToken)
    {
        if (onlyIfExpired && !entry.HasExpired(nowMs, SafetyMargin))
            return false;
        if (entry.ForwardCompat.Check("CL_E") is not null)
            return false;
        var durability = entry.Durability ?? defaultDurability;
        switch (entry.State)
        {
            case AttemptState.Committed:
                foreach (var doc in entry.Inserted.Concat(entry.Replaced))
                    await CommitDoc(doc, entry.AttemptId, durability, cancellationToken).ConfigureAwait(false);
                foreach (var doc in entry.Removed)
                    await RemoveDoc(doc, entry.AttemptId, durability, cancellationToken).ConfigureAwait(false);
                break;
            case AttemptState.Aborted:
                foreach (var doc in entry.Inserted)
                    await RollBackInsert(doc, entry.AttemptId, durability, cancellationToken).ConfigureAwait(false);
                foreach (var doc in entry.Replaced.Concat(entry.Removed))
                    await Unlink(doc, entry.AttemptId, durability, cancellationToken).ConfigureAwait(false);
                break;
        }
        try
        {
            await kv.RemoveAtrEntryAsync(atr, entry.AttemptId, guardPending: entry.State == AttemptState.Pending, durability, cancellationToken)
                .ConfigureAwait(false);
        }
        catch (Exception error) when (ErrorClasses.Of(error) == ErrorClass.PathNotFound)
        {
        }
        return true;
    }

    private async Task CommitDoc(DocId id, string attemptId, DurabilityLevel durability, CancellationToken cancellationToken)
    {
        var doc = await LinkedDoc(id, attemptId, requireCrcMatch: true, cancellationToken).ConfigureAwait(false);
        if (doc?.Links?.Staged is not { } staged)
            return;
        await IgnoringNotFound(kv.CommitAsync(id, new CommitWrite(doc.IsDeleted ? 0 : doc.Cas, doc.IsDeleted, BodyFromXattr: false,
            staged.Content, staged.Flags, durability), cancellationToken).AsTask()).ConfigureAwait(false);
    }

    private async Task RemoveDoc(DocId id, string attemptId, DurabilityLevel durability, CancellationToken cancellationToken)
    {
        var doc = await LinkedDoc(id, attemptId, requireCrcMatch: true, cancellationToken).ConfigureAwait(false);
        if (doc?.Links?.Type != StagedType.Remove)
            return;
        await IgnoringNotFound(kv.RemoveAsync(id, doc.Cas, durability, cancellationToken).AsTask()).ConfigureAwait(false);
    }

    private async Task RollBackInsert(DocId id, string attemptId, DurabilityLevel durability, CancellationToken cancellationToken)
    {
        var doc = await LinkedDoc(id, attemptId, requireCrcMatch: false, cancellationToken).ConfigureAwait(false);
        if (doc is null)
            return;
        if (doc.IsDeleted)
            await IgnoringNotFound(kv.UnlinkAsync(id, new UnlinkWrite(doc.Cas, true, null, durability), cancellationToken).AsTask())
                .ConfigureAwait(false);
        else
            await IgnoringNotFound(kv.RemoveAsync(id, doc.Cas, durability, cancellationToken).AsTask()).ConfigureAwait(false);
    }

    private async Task Unlink(DocId id, string attemptId, DurabilityLevel durability, CancellationToken cancellationToken)
    {
        var doc = await LinkedDoc(id, attemptId, requireCrcMatch: false, cancellationToken).ConfigureAwait(false);
        if (doc is null)
            return;
        await IgnoringNotFound(kv.UnlinkAsync(id, new UnlinkWrite(doc.Cas, true, null, durability), cancellationToken).AsTask())
            .ConfigureAwait(false);
    }

    /// <summary>The document, if it still carries the attempt's staged change (and, when asked, the body it was staged over).</summary>
    private async Task<TxnDocument?> LinkedDoc(DocId id, string attemptId, bool requireCrcMatch, CancellationToken cancellationToken)
    {
        TxnDocument? doc;
        try
        {
            doc = await kv.GetAsync(id, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception)
        {
            return null;
        }
        if (doc?.Links is not { AtrId: not null } links || links.AttemptId != attemptId)
            return null;
        if (requireCrcMatch && (links.Crc32 is null || doc.Metadata.Crc32 is null || links.Crc32 != doc.Metadata.Crc32))
            return null;
        return doc;
    }

    private static async Task IgnoringNotFound(Task write)
    {
        try
        {
            await write.ConfigureAwait(false);
        }
        catch (Exception error) when (ErrorClasses.Of(error) == ErrorClass.DocNotFound)
        {
        }
    }
}
