using Tern.Client.Transcoders;

namespace Tern.Client.Transactions;

/// <summary>
/// A document as a transaction sees it: the committed content, or the content this attempt staged
/// (read your own writes), or another transaction's once it has committed. Pass it to
/// <see cref="AttemptContext.ReplaceAsync{T}"/> or <see cref="AttemptContext.RemoveAsync"/>; its CAS
/// makes them fail if the document changed since.
/// </summary>
public sealed class TransactionGetResult
{
    private readonly ITypeTranscoder _transcoder;

    internal TransactionGetResult(TxnDocument document, ReadOnlyMemory<byte> content, uint flags, ulong cas, ITypeTranscoder transcoder)
    {
        Document = document;
        Content = content;
        Flags = flags;
        Cas = cas;
        _transcoder = transcoder;
    }

    /// <summary>The document's key.</summary>
    public string Id => Document.Id.Key;

    /// <summary>The document's CAS when it was read (or written by this attempt).</summary>
    public ulong Cas { get; }

    /// <summary>The content, decoded by the cluster's transcoder (JSON, or bytes and strings for binary documents).</summary>
    public T? ContentAs<T>() => _transcoder.Decode<T>(Content.Span, Flags, (Flags & 0xff000000) == DocumentFlags.Json
        ? Protocol.Datatype.Json
        : Protocol.Datatype.Raw);

    /// <summary>The document as read: its links, metadata and whether it is a tombstone.</summary>
    internal TxnDocument Document { get; }

    internal ReadOnlyMemory<byte> Content { get; }

    internal uint Flags { get; }
}
