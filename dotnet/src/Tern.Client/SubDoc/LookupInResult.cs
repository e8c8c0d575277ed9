using System.Buffers;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Tern.Client.Protocol;
using Tern.Client.SubDoc;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>
/// The results of a LookupIn, read by the index of each spec in the caller's order. A spec that
/// failed (a missing path...) fails only its own entry: reading it with <see cref="ContentAs{T}(int)"/>
/// throws the typed <see cref="Exceptions.SubDocException"/> naming the key, the path and the
/// index, as the official SDKs do. The values live in a buffer rented from
/// <see cref="ArrayPool{T}.Shared"/> that Dispose returns; forgetting Dispose is harmless, reading
/// after it throws <see cref="ObjectDisposedException"/>.
/// </summary>
public sealed class LookupInResult : IDisposable
{
    /// <summary>What TryGet's lookup yields for a missing document: no specs, no buffer.</summary>
    internal static readonly LookupInResult NotFound = new("", default, 0, [], 0, isDeleted: false, JsonTranscoder.Default, found: false);

    private static readonly byte[] JsonTrue = "true"u8.ToArray();
    private static readonly byte[] JsonFalse = "false"u8.ToArray();

    private readonly string _key;
    private readonly SpecOutcomes _outcomes;
    private readonly int _count;
    private readonly ITypeTranscoder _transcoder;
    private byte[]? _buffer;

    internal LookupInResult(string key, in SpecOutcomes outcomes, int count, byte[] buffer, ulong cas, bool isDeleted,
        ITypeTranscoder transcoder, bool found = true)
    {
        _key = key;
        _outcomes = outcomes;
        _count = count;
        _buffer = buffer;
        Cas = cas;
        IsDeleted = isDeleted;
        _transcoder = transcoder;
        Found = found;
    }

    /// <summary>The document's CAS.</summary>
    public ulong Cas { get; }

    /// <summary>True when the document is a tombstone, read with <see cref="LookupInOptions.AccessDeleted"/>.</summary>
    public bool IsDeleted { get; }

    /// <summary>False when a replica lookup returned a replica's copy (which may lag the active one); true otherwise.</summary>
    public bool IsActive { get; internal init; } = true;

    /// <summary>How many specs the lookup had.</summary>
    public int Count => _count;

    /// <summary>False only for TryGet's lookup of a missing document.</summary>
    internal bool Found { get; }

    /// <summary>True when the spec succeeded: its path exists (for an Exists spec, the answer itself).</summary>
    public bool Exists(int index) => Outcome(index).Status == ResponseStatus.Success;

    /// <summary>
    /// The spec's value, decoded as JSON with the operation's transcoder: the fragment at the path
    /// for Get, the number for Count, true or false for Exists (false when the path is missing).
    /// Throws the spec's <see cref="Exceptions.SubDocException"/> when it failed.
    /// </summary>
    public T? ContentAs<T>(int index) =>
        _transcoder.Decode<T>(Content(index), DocumentFlags.Json, Datatype.Json);

    /// <summary>The same, deserialized with an explicit (e.g. source-generated) type info.</summary>
    public T? ContentAs<T>(int index, JsonTypeInfo<T> typeInfo) => JsonSerializer.Deserialize(Content(index), typeInfo);

    /// <summary>The index of the first spec with this path, or -1.</summary>
    public int IndexOf(string path) => SpecOutcomes.IndexOf(((ReadOnlySpan<SpecOutcome>)_outcomes)[.._count], path);

    public void Dispose()
    {
        var buffer = Interlocked.Exchange(ref _buffer, null);
        if (buffer is not null && Found)
            ArrayPool<byte>.Shared.Return(buffer);
    }

    /// <summary>The spec's raw JSON value; throws the spec's exception when it failed.</summary>
    internal ReadOnlySpan<byte> Content(int index) => ContentMemory(index).Span;

    /// <summary>The spec's raw JSON value as memory, valid until Dispose; throws the spec's exception when it failed.</summary>
    internal ReadOnlyMemory<byte> ContentMemory(int index)
    {
        ref readonly var outcome = ref Outcome(index);
        var buffer = _buffer ?? throw new ObjectDisposedException(nameof(LookupInResult));
        if (outcome.Opcode == Opcode.SubdocExists && outcome.Status is ResponseStatus.Success or ResponseStatus.SubdocPathEnoent)
            return outcome.Status == ResponseStatus.Success ? JsonTrue : JsonFalse;
        if (outcome.Status != ResponseStatus.Success)
            throw Error(index);
        return buffer.AsMemory(outcome.Offset, outcome.Length);
    }

    /// <summary>The document the lookup read.</summary>
    internal string Key => _key;

    /// <summary>The spec's path as the caller gave it.</summary>
    internal string PathOf(int index) => Outcome(index).Path;

    /// <summary>The status the server gave the spec.</summary>
    internal ResponseStatus StatusOf(int index) => Outcome(index).Status;

    /// <summary>The exception for a failed spec.</summary>
    internal Exception Error(int index)
    {
        ref readonly var outcome = ref Outcome(index);
        return SubdocErrors.For(Opcode.SubdocMultiLookup, outcome.Status, _key, hadCas: false, DurabilityLevel.None, null, outcome.Path, index);
    }

    /// <summary>
    /// Hands the pooled buffer over with the spec's value moved to its start (no second buffer, no
    /// copy to another one); the result is empty afterwards. For GetResult, which owns it next.
    /// </summary>
    internal (byte[] Buffer, int Length) DetachContent(int index)
    {
        var content = Content(index);
        var (offset, length) = (Outcome(index).Offset, content.Length);
        var buffer = Interlocked.Exchange(ref _buffer, null) ?? throw new ObjectDisposedException(nameof(LookupInResult));
        buffer.AsSpan(offset, length).CopyTo(buffer);
        return (buffer, length);
    }

    private ref readonly SpecOutcome Outcome(int index)
    {
        if ((uint)index >= (uint)_count)
            throw new ArgumentOutOfRangeException(nameof(index), index, $"the lookup had {_count} specs");
        return ref _outcomes[index];
    }
}
