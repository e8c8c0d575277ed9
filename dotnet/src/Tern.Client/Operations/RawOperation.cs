using System.Buffers;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Any request, given as parts; for bootstrap steps (HELLO, SASL...) and diagnostics. Framing extras
/// make it an alt request, which only a connection that negotiated alt requests carries.
/// </summary>
public sealed record RawRequest(Opcode Opcode, byte[]? Key = null, byte[]? Extras = null, byte[]? Value = null,
    ulong Cas = 0, Datatype Datatype = Datatype.Raw, byte[]? FramingExtras = null);

/// <summary>
/// A response as received, whatever its status. <see cref="ServerDuration"/> is the time the server
/// says it spent (alt responses with Tracing negotiated), else null.
/// </summary>
public sealed record RawResponse(ResponseStatus Status, ulong Cas, Datatype Datatype, byte[] Extras, byte[] Key, byte[] Value,
    TimeSpan? ServerDuration = null);

/// <summary>Carries a <see cref="RawRequest"/>; never throws for a failed status. Not pooled: it is not on a hot path.</summary>
public sealed class RawOperation : Operation<RawResponse>
{
    private RawResponse? _response;

    public static RawOperation Create(RawRequest request, TimeSpan timeout, TimeProvider time, CancellationToken cancellationToken)
    {
        var operation = new RawOperation();
        operation.Prepare(request.Opcode, request.Key, request.Extras, request.Cas, request.FramingExtras);
        operation.Request.Write(request.Value);
        operation.Seal(request.Datatype);
        operation.Start(timeout, time, cancellationToken);
        return operation;
    }

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        var extras = body.Slice(header.FramingExtrasLength, header.ExtrasLength);
        var key = body.Slice(header.FramingExtrasLength + header.ExtrasLength, header.KeyLength);
        _response = new RawResponse((ResponseStatus)header.VBucketOrStatus, header.Cas, (Datatype)header.Datatype,
            extras.ToArray(), key.ToArray(), ValueOf(header, body).ToArray(), ServerDuration);
    }

    protected override RawResponse BuildResult() => _response!;

    protected override void ReturnToPool()
    {
    }
}
