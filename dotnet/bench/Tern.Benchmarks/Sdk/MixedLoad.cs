using System.Buffers;
using System.Text;
using Tern.Client;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// What the callers of a run work on (see <see cref="LoadRun"/>), the same as compat/bench/sdk-load.mjs:
/// operation number i works on key i % keys and is a Get when i % 100 &lt; <see cref="GetPercent"/>,
/// else an Upsert of <see cref="Value"/>.
/// </summary>
internal sealed class MixedLoad(Collection collection, string[] keys, byte[] value, int getPercent)
{
    /// <summary>Upserts store <see cref="Value"/> as JSON text, without serializing it.</summary>
    public static readonly UpsertOptions Upsert = new() { Transcoder = RawJsonTranscoder.Instance };

    public Collection Collection { get; } = collection;

    public string[] Keys { get; } = keys;

    public byte[] Value { get; } = value;

    public int GetPercent { get; } = getPercent;

    /// <summary>Whether operation number <paramref name="i"/> is a Get (else an Upsert).</summary>
    public bool IsGet(long i) => i % 100 < GetPercent;

    /// <summary>Stores every key, <paramref name="inFlight"/> at a time, so that every Get finds its document.</summary>
    public async Task LoadAsync(int inFlight)
    {
        var next = -1;
        await Task.WhenAll(Enumerable.Range(0, inFlight).Select(async _ =>
        {
            for (var i = Interlocked.Increment(ref next); i < Keys.Length; i = Interlocked.Increment(ref next))
                await Collection.UpsertAsync(Keys[i], Value, Upsert).ConfigureAwait(false);
        })).ConfigureAwait(false);
    }
}

/// <summary>
/// The benchmark's values: JSON text already serialized, stored as is with the JSON common flag
/// (as the Node.js SDK's RawJsonTranscoder does), so neither harness spends time in a JSON
/// serializer. The datatype stays raw: plain memcached knows no other.
/// </summary>
internal sealed class RawJsonTranscoder : ITypeTranscoder
{
    public static readonly RawJsonTranscoder Instance = new();

    public void Encode<T>(IBufferWriter<byte> destination, T value, out uint flags, out Datatype datatype)
    {
        if (value is not byte[] json)
            throw new NotSupportedException("the benchmark's values are byte arrays of JSON text");
        destination.Write(json);
        (flags, datatype) = (DocumentFlags.Json, Datatype.Raw);
    }

    public T? Decode<T>(ReadOnlySpan<byte> content, uint flags, Datatype datatype) =>
        throw new NotSupportedException("the benchmark does not decode what it reads");
}

/// <summary>The JSON document every key holds, the same text as compat/bench/sdk-load.mjs benchDocument.</summary>
internal static class BenchDocument
{
    private const string Full =
        "{\"type\":\"bench\",\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\",\"langs\":[\"en\",\"fr\"],\"visits\":42,\"active\":true,\"pad\":\"";
    private const string Bare = "{\"pad\":\"";
    private const string Suffix = "\"}";
    private const string Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    public const int MinimumSize = 10;

    /// <summary>
    /// A user-like record padded to exactly <paramref name="size"/> bytes, or a bare {"pad":"..."} when it does
    /// not fit. The pad is pseudo-random letters and digits (a 32-bit LCG from a fixed seed), so the document
    /// does not shrink under Snappy enough for either SDK to send it compressed (both want 0.83 or less).
    /// </summary>
    public static byte[] Create(int size)
    {
        var prefix = size >= Full.Length + Suffix.Length ? Full : Bare;
        if (size < prefix.Length + Suffix.Length)
            throw new ArgumentException($"--value-size: at least {MinimumSize} bytes");
        var pad = new char[size - prefix.Length - Suffix.Length];
        var state = 2463534242u;
        for (var i = 0; i < pad.Length; i++)
        {
            state = unchecked(state * 1664525u + 1013904223u);
            pad[i] = Alphabet[(int)((state >> 16) % (uint)Alphabet.Length)];
        }
        return Encoding.ASCII.GetBytes(prefix + new string(pad) + Suffix);
    }

    /// <summary>The key of document <paramref name="index"/>, as the Node.js harness names it.</summary>
    public static string Key(int index) => $"bench::{index:D8}";
}
