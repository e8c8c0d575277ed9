using System.Buffers;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Tern.Client.Protocol;
using Tern.Client.SubDoc;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>
/// The outcome of a MutateIn that applied every spec: the document's new CAS, its mutation token
/// when the server sends one, and the values of the specs that return one (counters), read by the
/// caller's index. Those values live in a buffer rented from <see cref="ArrayPool{T}.Shared"/>
/// (only when there are any) that Dispose returns; forgetting Dispose is harmless.
/// </summary>
public sealed class MutateInResult : IDisposable
{
    private readonly SpecOutcomes _outcomes;
    private readonly int _count;
    private readonly ITypeTranscoder _transcoder;
    private byte[]? _values;
    private bool _disposed;

    internal MutateInResult(in SpecOutcomes outcomes, int count, byte[]? values, ulong cas, MutationToken? token,
        ITypeTranscoder transcoder)
    {
        _outcomes = outcomes;
        _count = count;
        _values = values;
        Cas = cas;
        MutationToken = token;
        _transcoder = transcoder;
    }

    /// <summary>The document's CAS after the mutation.</summary>
    public ulong Cas { get; }

    /// <summary>Where the mutation landed; null when the server sends no tokens (MutationSeqno not negotiated).</summary>
    public MutationToken? MutationToken { get; }

    /// <summary>
    /// The value the spec returned, decoded as JSON: the new number of an Increment or Decrement;
    /// default for specs that return nothing.
    /// </summary>
    public T? ContentAs<T>(int index) =>
        Content(index) is { IsEmpty: false } content ? _transcoder.Decode<T>(content, DocumentFlags.Json, Datatype.Json) : default;

    /// <summary>The same, deserialized with an explicit (e.g. source-generated) type info.</summary>
    public T? ContentAs<T>(int index, JsonTypeInfo<T> typeInfo) =>
        Content(index) is { IsEmpty: false } content ? JsonSerializer.Deserialize(content, typeInfo) : default;

    /// <summary>The index of the first spec with this path, or -1.</summary>
    public int IndexOf(string path) => SpecOutcomes.IndexOf(((ReadOnlySpan<SpecOutcome>)_outcomes)[.._count], path);

    public void Dispose()
    {
        _disposed = true;
        var values = Interlocked.Exchange(ref _values, null);
        if (values is not null)
            ArrayPool<byte>.Shared.Return(values);
    }

    private ReadOnlySpan<byte> Content(int index)
    {
        if ((uint)index >= (uint)_count)
            throw new ArgumentOutOfRangeException(nameof(index), index, $"the mutation had {_count} specs");
        ObjectDisposedException.ThrowIf(_disposed, this);
        ref readonly var outcome = ref _outcomes[index];
        return outcome.Length == 0 ? default : _values.AsSpan(outcome.Offset, outcome.Length);
    }
}
