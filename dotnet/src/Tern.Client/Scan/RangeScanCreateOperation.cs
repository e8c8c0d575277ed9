using System.Buffers;
using System.Globalization;
using System.Text.Json;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Scan;

/// <summary>What one vbucket's RANGE_SCAN_CREATE asks for (kv_engine's range_scan_create.md).</summary>
internal readonly record struct ScanRequest(
    uint CollectionId,
    bool KeyOnly,
    ScanTerm? From,
    ScanTerm? To,
    SamplingScan? Sampling,
    MutationToken? ConsistentWith,
    TimeSpan SeqnoWait);

/// <summary>
/// RANGE_SCAN_CREATE (0xda) to one vbucket: the answer is the new scan's 16-byte id, or null when
/// nothing in the vbucket is in range (KeyEnoent). Not pooled: one per vbucket per scan.
/// </summary>
internal sealed class RangeScanCreateOperation : Operation<byte[]?>
{
    private byte[]? _id;

    public static RangeScanCreateOperation Create(ushort vbucket, in ScanRequest request)
    {
        var operation = new RangeScanCreateOperation { PinnedVBucket = vbucket };
        operation.Prepare(Opcode.RangeScanCreate, ReadOnlySpan<byte>.Empty, ReadOnlySpan<byte>.Empty);
        using (var json = new Utf8JsonWriter((IBufferWriter<byte>)operation.Request))
            Write(json, request);
        operation.Seal(Datatype.Json);
        return operation;
    }

    private static void Write(Utf8JsonWriter json, in ScanRequest request)
    {
        json.WriteStartObject();
        json.WriteString("collection", request.CollectionId.ToString("x", CultureInfo.InvariantCulture));
        if (request.KeyOnly)
            json.WriteBoolean("key_only", true);
        if (request.Sampling is { } sampling)
        {
            json.WriteStartObject("sampling");
            json.WriteNumber("samples", sampling.Limit);
            json.WriteNumber("seed", sampling.Seed);
            json.WriteEndObject();
        }
        else
        {
            json.WriteStartObject("range");
            json.WriteBase64String(request.From!.IsExclusive ? "excl_start" : "start", request.From.Bytes);
            json.WriteBase64String(request.To!.IsExclusive ? "excl_end" : "end", request.To.Bytes);
            json.WriteEndObject();
        }
        if (request.ConsistentWith is { } token)
        {
            json.WriteStartObject("snapshot_requirements");
            json.WriteString("vb_uuid", token.VBucketUuid.ToString(CultureInfo.InvariantCulture));
            json.WriteNumber("seqno", token.SequenceNumber);
            json.WriteNumber("timeout_ms", (ulong)request.SeqnoWait.TotalMilliseconds);
            json.WriteEndObject();
        }
        json.WriteEndObject();
    }

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (Status == ResponseStatus.Success)
            _id = ValueOf(header, body).ToArray();
    }

    protected override byte[]? BuildResult() => Status switch
    {
        ResponseStatus.Success when _id is { Length: RangeScanContinueOperation.IdLength } => _id,
        ResponseStatus.Success => throw new Exceptions.TernException(
            $"the server answered {Opcode.Name()} of vbucket {VBucket} with a {_id?.Length ?? 0}-byte scan id, not 16"),
        ResponseStatus.KeyEnoent => null,
        _ => throw ScanErrors.For(this, Status),
    };

    protected override void ReturnToPool()
    {
    }
}
