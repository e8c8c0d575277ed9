using System.Buffers;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Scan;

/// <summary>
/// What a scan request does after a failed attempt: what the bucket's step does (a newer map on
/// NotMyVbucket, a backoff on temporary failures), except where the scan itself decides. A lost
/// scan (KeyEnoent), a changed vbucket uuid or an unknown collection end the request, so that
/// the scan resumes or fails with that reason; and a continue whose connection failed after
/// sending is never sent again, since the server may have moved past the items it lost.
/// </summary>
internal sealed class ScanRetryStep(IRetryStep bucket) : IRetryStep
{
    public bool OnResponse(OperationBase operation, in FrameHeader header, in ReadOnlySequence<byte> body) =>
        (ResponseStatus)header.VBucketOrStatus switch
        {
            ResponseStatus.RangeScanMore or ResponseStatus.RangeScanComplete or ResponseStatus.RangeScanCancelled or
                ResponseStatus.KeyEnoent or ResponseStatus.VbUuidNotEqual or ResponseStatus.UnknownCollection or
                ResponseStatus.UnknownScope => false,
            _ => bucket.OnResponse(operation, header, body),
        };

    public bool OnConnectionFailure(OperationBase operation, Exception error, bool sent) =>
        !(sent && operation.Opcode == Opcode.RangeScanContinue) && bucket.OnConnectionFailure(operation, error, sent);
}
