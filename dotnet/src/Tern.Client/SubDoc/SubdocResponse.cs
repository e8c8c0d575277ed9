using System.Buffers;
using System.Buffers.Binary;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.SubDoc;

/// <summary>
/// Reads the answers of SUBDOC_MULTI_LOOKUP and SUBDOC_MULTI_MUTATION into per-spec outcomes, in
/// the caller's order. A lookup answers every spec: status u16, value length u32, value. A
/// mutation answers, on success, only the specs that return a value (counters): index u8, status
/// u16, value length u32, value; on failure the first failing spec: index u8, status u16.
/// </summary>
internal static class SubdocResponse
{
    private const int LookupEntryHeader = 6;
    private const int MutationEntryHeader = 7;
    private const int MutationFailureLength = 3;

    /// <summary>The whole-request statuses whose body carries the specs' results.</summary>
    public static bool CarriesSpecs(ResponseStatus status) => status is ResponseStatus.Success or ResponseStatus.SubdocSuccessDeleted
        or ResponseStatus.SubdocMultiPathFailure or ResponseStatus.SubdocMultiPathFailureDeleted;

    /// <summary>The statuses of a request that found the document deleted (AccessDeleted).</summary>
    public static bool OnDeleted(ResponseStatus status) =>
        status is ResponseStatus.SubdocSuccessDeleted or ResponseStatus.SubdocMultiPathFailureDeleted;

    public static bool IsMultiPathFailure(ResponseStatus status) =>
        status is ResponseStatus.SubdocMultiPathFailure or ResponseStatus.SubdocMultiPathFailureDeleted;

    /// <summary>Copies the answer's value into a rented buffer (decompressing a Snappy one); the caller returns it.</summary>
    public static (byte[] Buffer, int Length) Rent(in FrameHeader header, in ReadOnlySequence<byte> value, string key)
    {
        if (((Datatype)header.Datatype & Datatype.Snappy) != 0)
            return ValueCompression.Decompress(value, key);
        var buffer = ArrayPool<byte>.Shared.Rent(Math.Max((int)value.Length, 1));
        value.CopyTo(buffer);
        return (buffer, (int)value.Length);
    }

    public static void ReadLookup(ReadOnlySpan<byte> body, Span<SpecOutcome> outcomes, ReadOnlySpan<byte> wireToCaller, string key)
    {
        var position = 0;
        for (var wire = 0; wire < outcomes.Length; wire++)
        {
            if (body.Length - position < LookupEntryHeader)
                throw Malformed(key, "lookup", $"the answer ends after {wire} of {outcomes.Length} specs");
            var status = (ResponseStatus)BinaryPrimitives.ReadUInt16BigEndian(body[position..]);
            var length = BinaryPrimitives.ReadUInt32BigEndian(body[(position + 2)..]);
            position += LookupEntryHeader;
            if (length > (uint)(body.Length - position))
                throw Malformed(key, "lookup", $"spec {wire}'s value overruns the answer");
            ref var outcome = ref outcomes[wireToCaller[wire]];
            (outcome.Status, outcome.Offset, outcome.Length) = (status, position, (int)length);
            position += (int)length;
        }
        if (position != body.Length)
            throw Malformed(key, "lookup", $"{body.Length - position} bytes follow the last spec");
    }

    public static void ReadMutationValues(ReadOnlySpan<byte> body, Span<SpecOutcome> outcomes, ReadOnlySpan<byte> wireToCaller, string key)
    {
        var position = 0;
        while (position < body.Length)
        {
            if (body.Length - position < MutationEntryHeader)
                throw Malformed(key, "mutation", "a result entry is cut short");
            var wire = body[position];
            var length = BinaryPrimitives.ReadUInt32BigEndian(body[(position + 3)..]);
            position += MutationEntryHeader;
            if (wire >= outcomes.Length || length > (uint)(body.Length - position))
                throw Malformed(key, "mutation", $"the entry for spec {wire} is out of range");
            ref var outcome = ref outcomes[wireToCaller[wire]];
            (outcome.Offset, outcome.Length) = (position, (int)length);
            position += (int)length;
        }
    }

    /// <summary>The first failing spec of a multi-mutation: the caller's index and its status.</summary>
    public static (int Index, ResponseStatus Status) ReadMutationFailure(ReadOnlySpan<byte> body, int count,
        ReadOnlySpan<byte> wireToCaller, string key)
    {
        if (body.Length < MutationFailureLength || body[0] >= count)
            throw Malformed(key, "mutation", "the multi-path failure does not name one of the specs");
        return (wireToCaller[body[0]], (ResponseStatus)BinaryPrimitives.ReadUInt16BigEndian(body[1..]));
    }

    private static TernException Malformed(string key, string kind, string detail) =>
        new($"the server's sub-document {kind} answer for key '{TernException.Describe(key)}' is malformed: {detail}", key);
}
