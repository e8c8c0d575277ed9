namespace Tern.Client.Transactions;

/// <summary>
/// A document as a transaction reads it (one lookup with AccessDeleted): the committed body, the
/// server's metadata, and the links of the attempt that has staged a change in it, if any.
/// </summary>
internal sealed record TxnDocument(
    DocId Id,
    ulong Cas,
    bool IsDeleted,
    ReadOnlyMemory<byte> Body,
    uint Flags,
    TxnLinks? Links,
    DocumentMetadata Metadata);

/// <summary>A document's address: its collection and key.</summary>
internal readonly record struct DocId(TransactionKeyspace Keyspace, string Key)
{
    public override string ToString() => $"{Keyspace}/{Key}";
}

/// <summary>The server's view of a document, from the <c>$document</c> virtual XATTR: what a staged replace or remove records to restore.</summary>
internal sealed record DocumentMetadata(string? Cas, string? RevId, uint? ExpiryTime, string? Crc32, uint? Flags)
{
    public static readonly DocumentMetadata None = new(null, null, null, null, null);
}

/// <summary>
/// The <c>txn</c> XATTR of a document that an attempt (of any SDK) has staged a change in: which
/// transaction and attempt, where their ATR is, the kind of change, and its content (JSON in
/// <c>op.stgd</c>, or bytes in <c>op.bin</c> with the flags in <c>aux.uf</c>).
/// </summary>
internal sealed record TxnLinks(
    string? TransactionId,
    string? AttemptId,
    string? OperationId,
    string? AtrId,
    string? AtrBucket,
    string? AtrScope,
    string? AtrCollection,
    StagedType? Type,
    ReadOnlyMemory<byte>? StagedJson,
    ReadOnlyMemory<byte>? StagedBinary,
    uint? StagedFlags,
    string? Crc32,
    ForwardCompat ForwardCompat)
{
    /// <summary>The staged content, if any, with the flags it commits with.</summary>
    public (ReadOnlyMemory<byte> Content, uint Flags)? Staged =>
        StagedJson is { } json ? (json, StagedFlags ?? Transcoders.DocumentFlags.Json)
        : StagedBinary is { } binary ? (binary, StagedFlags ?? Transcoders.DocumentFlags.Binary)
        : null;

    /// <summary>The ATR that says whether this staged change committed; null when the links do not name one fully.</summary>
    public DocId? Atr => AtrId is null || AtrBucket is null
        ? null
        : new DocId(new TransactionKeyspace(AtrBucket, AtrScope ?? "_default", AtrCollection ?? "_default"), AtrId);
}

/// <summary>The kind of change a document has staged, as <c>txn.op.type</c> spells it.</summary>
internal enum StagedType
{
    Insert,
    Replace,
    Remove,
}

internal static class StagedTypes
{
    public static string Name(StagedType type) => type switch
    {
        StagedType.Insert => "insert",
        StagedType.Replace => "replace",
        _ => "remove",
    };

    public static StagedType? Parse(string? name) => name switch
    {
        "insert" => StagedType.Insert,
        "replace" => StagedType.Replace,
        "remove" => StagedType.Remove,
        _ => null,
    };
}
