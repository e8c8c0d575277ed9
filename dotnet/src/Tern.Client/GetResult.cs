using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>
/// A document read by Get, TryGet, GetAndTouch or GetAndLock. The content lives in a buffer
/// rented from <see cref="ArrayPool{T}.Shared"/>; Dispose returns it. Forgetting Dispose is
/// harmless (the buffer is simply collected); reading after Dispose throws
/// <see cref="ObjectDisposedException"/>, and memory handed out by <see cref="ContentAsMemory"/>
/// must not be used after Dispose.
/// </summary>
public sealed class GetResult : IDisposable
{
    internal static readonly GetResult NotFound = new(found: false, [], 0, 0, 0, Datatype.Raw, JsonTranscoder.Default, rented: false);

    private readonly ITypeTranscoder _transcoder;
    private readonly int _length;
    private readonly bool _rented;
    private byte[]? _buffer;

    internal GetResult(bool found, byte[] buffer, int length, ulong cas, uint flags, Datatype datatype,
        ITypeTranscoder transcoder, bool rented)
    {
        Found = found;
        _buffer = buffer;
        _length = length;
        Cas = cas;
        Flags = flags;
        Datatype = datatype;
        _transcoder = transcoder;
        _rented = rented;
    }

    /// <summary>False when a replica read returned a replica's copy (which may lag the active one); true otherwise.</summary>
    public bool IsActive { get; internal init; } = true;

    /// <summary>False only from TryGetAsync when the document does not exist.</summary>
    public bool Found { get; }

    public ulong Cas { get; }

    /// <summary>The item flags stored with the document (see <see cref="DocumentFlags"/>).</summary>
    public uint Flags { get; }

    public Datatype Datatype { get; }

    /// <summary>
    /// When the document expires (UTC), read with <see cref="GetOptions.WithExpiry"/>; null when it
    /// never expires or when the expiry was not asked for.
    /// </summary>
    public DateTime? ExpiryTime { get; internal init; }

    public int ContentLength => _length;

    /// <summary>The raw content, valid until Dispose.</summary>
    public ReadOnlyMemory<byte> ContentAsMemory() => Content().AsMemory(0, _length);

    public ReadOnlySpan<byte> ContentAsSpan() => Content().AsSpan(0, _length);

    /// <summary>A copy of the raw content that stays valid after Dispose.</summary>
    public byte[] ContentAsBytes() => ContentAsSpan().ToArray();

    /// <summary>The content as UTF-8 text, without JSON deserialization.</summary>
    public string ContentAsString() => Encoding.UTF8.GetString(ContentAsSpan());

    /// <summary>Decodes the content with the operation's transcoder.</summary>
    public T? ContentAs<T>() => _transcoder.Decode<T>(ContentAsSpan(), Flags, Datatype);

    /// <summary>Deserializes JSON content with an explicit (e.g. source-generated) type info.</summary>
    public T? ContentAs<T>(JsonTypeInfo<T> typeInfo) => JsonSerializer.Deserialize(ContentAsSpan(), typeInfo);

    public void Dispose()
    {
        var buffer = Interlocked.Exchange(ref _buffer, null);
        if (buffer is not null && _rented)
            ArrayPool<byte>.Shared.Return(buffer);
    }

    private byte[] Content()
    {
        if (!Found)
            throw new InvalidOperationException("the document was not found; check Found before reading the content");
        return _buffer ?? throw new ObjectDisposedException(nameof(GetResult));
    }
}
