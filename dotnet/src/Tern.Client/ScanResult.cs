using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>A document (or only its key, with <see cref="ScanOptions.IdsOnly"/>) that a scan returned.</summary>
public interface IScanResult
{
    /// <summary>The document's key.</summary>
    string Id { get; }

    /// <summary>True when the scan asked for keys only: then there is no content, CAS or expiry.</summary>
    bool IdOnly { get; }

    ulong Cas { get; }

    /// <summary>When the document expires (UTC); null when it never does.</summary>
    DateTime? ExpiryTime { get; }

    /// <summary>Decodes the content with the scan's transcoder.</summary>
    T? ContentAs<T>();

    T? ContentAs<T>(JsonTypeInfo<T> typeInfo);

    byte[] ContentAsBytes();

    /// <summary>The raw content, without a copy: valid as long as the result is referenced.</summary>
    ReadOnlyMemory<byte> ContentAsMemory();

    string ContentAsString();
}

/// <summary>
/// One scanned item. Documents share their batch's buffer (one copy of the server's frame), so an
/// item costs this object and its key string.
/// </summary>
internal sealed class ScanResult : IScanResult
{
    private readonly ReadOnlyMemory<byte> _content;
    private readonly ITypeTranscoder? _transcoder;
    private readonly uint _expiry;

    /// <summary>A key, from a keys-only scan.</summary>
    public ScanResult(string id)
    {
        Id = id;
        IdOnly = true;
    }

    public ScanResult(string id, ReadOnlyMemory<byte> content, uint flags, uint expiry, ulong seqno, ulong cas, Datatype datatype,
        ITypeTranscoder transcoder)
    {
        Id = id;
        _content = content;
        Flags = flags;
        _expiry = expiry;
        SequenceNumber = seqno;
        Cas = cas;
        Datatype = datatype;
        _transcoder = transcoder;
    }

    public string Id { get; }

    public bool IdOnly { get; }

    public ulong Cas { get; }

    public uint Flags { get; }

    public ulong SequenceNumber { get; }

    public Datatype Datatype { get; }

    public DateTime? ExpiryTime => _expiry == 0 ? null : DateTime.UnixEpoch.AddSeconds(_expiry);

    public T? ContentAs<T>() => _transcoder!.Decode<T>(Content().Span, Flags, Datatype);

    public T? ContentAs<T>(JsonTypeInfo<T> typeInfo) => JsonSerializer.Deserialize(Content().Span, typeInfo);

    public byte[] ContentAsBytes() => Content().ToArray();

    public ReadOnlyMemory<byte> ContentAsMemory() => Content();

    public string ContentAsString() => Encoding.UTF8.GetString(Content().Span);

    private ReadOnlyMemory<byte> Content() => IdOnly
        ? throw new InvalidOperationException($"the scan asked for ids only: document '{Id}' has no content")
        : _content;
}
