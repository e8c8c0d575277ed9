using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using System.Text.Unicode;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.SubDoc;

/// <summary>
/// The specs of one LookupIn or MutateIn in the caller's order, and their encoding as the request's
/// value: XATTR specs first (the server refuses an XATTR spec after a body spec, so the official SDKs
/// reorder too), each path encoded from its string straight into the request buffer. Owned and
/// reused by a thread-cached builder, so building and encoding allocate nothing per spec.
/// </summary>
internal sealed class SubdocSpecList
{
    /// <summary>The most specs one multi-path request may carry.</summary>
    public const int MaxSpecs = 16;

    /// <summary>The longest path in UTF-8 bytes the server accepts.</summary>
    public const int MaxPathLength = 1024;

    // A UTF-16 char never takes more than 3 UTF-8 bytes (a surrogate pair: 2 chars, 4 bytes).
    private const int MaxUtf8BytesPerChar = 3;

    private readonly SubdocSpec[] _specs = new SubdocSpec[MaxSpecs];
    private string _operation = "";

    public int Count { get; private set; }

    /// <summary>The document the specs are for, named by the errors.</summary>
    public string Key { get; private set; } = "";

    public ref readonly SubdocSpec this[int index] => ref _specs[index];

    /// <summary>Starts a list for <paramref name="operation"/> (LookupIn, MutateIn) of <paramref name="key"/>.</summary>
    public void Begin(string operation, string key)
    {
        _operation = operation;
        Key = key;
        Count = 0;
    }

    /// <summary>Forgets the specs, and with them the caller's strings.</summary>
    public void Clear()
    {
        Array.Clear(_specs, 0, Count);
        Count = 0;
        Key = "";
    }

    public void Add(in SubdocSpec spec)
    {
        ArgumentNullException.ThrowIfNull(spec.Path, "path");
        if (Count == MaxSpecs)
            throw new ArgumentException(
                $"{_operation} of key '{TernException.Describe(Key)}': a sub-document request holds at most {MaxSpecs} specs; nothing was sent",
                "configureBuilder");
        _specs[Count++] = spec;
    }

    /// <summary>
    /// Appends every spec to <paramref name="request"/>'s value, XATTR specs first, each keeping its
    /// order among its kind; <paramref name="wireToCaller"/>[i] receives the caller's index of the
    /// i-th spec on the wire. Mutation specs carry a value length and the value (from
    /// <paramref name="values"/>); lookup specs neither. Throws <see cref="ArgumentException"/> for an
    /// empty list or a path over <see cref="MaxPathLength"/> bytes.
    /// </summary>
    public void Encode(RequestBuffer request, bool mutation, ReadOnlySpan<byte> values, Span<byte> wireToCaller)
    {
        if (Count == 0)
            throw new ArgumentException(
                $"{_operation} of key '{TernException.Describe(Key)}' needs at least one spec; nothing was sent", "configureBuilder");
        var wire = 0;
        foreach (var xattrPass in (ReadOnlySpan<bool>)[true, false])
        {
            for (var i = 0; i < Count; i++)
            {
                if (_specs[i].IsXattr != xattrPass)
                    continue;
                Write(request, _specs[i], mutation, values);
                wireToCaller[wire++] = (byte)i;
            }
        }
    }

    /// <summary>
    /// A lookup spec: op u8, path flags u8, path length u16, path. A mutation spec: op u8, path
    /// flags u8, path length u16, value length u32, path, value.
    /// </summary>
    private void Write(RequestBuffer request, in SubdocSpec spec, bool mutation, ReadOnlySpan<byte> values)
    {
        var headerLength = mutation ? 8 : 4;
        // Capping the room at the limit makes the encoder itself reject a path that is too long.
        var room = Math.Min(spec.Path.Length * MaxUtf8BytesPerChar, MaxPathLength);
        var span = request.GetSpan(headerLength + room + spec.ValueLength);
        if (Utf8.FromUtf16(spec.Path, span.Slice(headerLength, room), out _, out var pathLength) != OperationStatus.Done)
            throw PathTooLong(spec.Path);
        span[0] = (byte)spec.Opcode;
        span[1] = (byte)spec.Flags;
        if ((spec.Flags & SubdocPathFlags.BinaryValue) != 0)
            request.Require(HelloFeature.SubdocBinaryXattr);
        BinaryPrimitives.WriteUInt16BigEndian(span[2..], (ushort)pathLength);
        if (mutation)
        {
            BinaryPrimitives.WriteUInt32BigEndian(span[4..], (uint)spec.ValueLength);
            values.Slice(spec.ValueOffset, spec.ValueLength).CopyTo(span[(headerLength + pathLength)..]);
        }
        request.Advance(headerLength + pathLength + spec.ValueLength);
    }

    // Error path only: here the path's full UTF-8 length is worth measuring.
    private ArgumentException PathTooLong(string path) =>
        new($"{_operation} of key '{TernException.Describe(Key)}': path '{TernException.Describe(path)}' is longer than " +
            $"{MaxPathLength} UTF-8 bytes ({Encoding.UTF8.GetByteCount(path)} bytes), the sub-document limit; nothing was sent", "path");
}
