namespace Tern.Client.Transactions;

/// <summary>
/// A change this attempt has staged: the document, its kind, the CAS the staging write gave it
/// (which unstaging and rollback must meet), and the content with its flags (inserts and replaces).
/// </summary>
internal sealed record StagedMutation(DocId Id, StagedType Type, ulong Cas, ReadOnlyMemory<byte> Content, uint Flags, TxnDocument Document);

/// <summary>The staged changes of one attempt, one per document (the last change to a document replaces its earlier one).</summary>
internal sealed class StagedMutations
{
    private readonly List<StagedMutation> _mutations = [];

    public IReadOnlyList<StagedMutation> All => _mutations;

    public StagedMutation? Find(DocId id) => _mutations.Find(mutation => mutation.Id == id);

    public void Set(StagedMutation mutation)
    {
        var index = _mutations.FindIndex(m => m.Id == mutation.Id);
        if (index >= 0)
            _mutations[index] = mutation;
        else
            _mutations.Add(mutation);
    }

    public void Remove(DocId id) => _mutations.RemoveAll(mutation => mutation.Id == id);

    /// <summary>The documents as the ATR lists them when the attempt commits or aborts.</summary>
    public StagedDocs ToDocs() => new(
        _mutations.Where(m => m.Type == StagedType.Insert).Select(m => m.Id).ToList(),
        _mutations.Where(m => m.Type == StagedType.Replace).Select(m => m.Id).ToList(),
        _mutations.Where(m => m.Type == StagedType.Remove).Select(m => m.Id).ToList());
}
