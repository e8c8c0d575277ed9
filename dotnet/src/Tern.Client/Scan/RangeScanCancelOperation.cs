using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Scan;

/// <summary>RANGE_SCAN_CANCEL (0xdc): ends a scan early and frees it on the server. A scan the server no longer knows (KeyEnoent) is already gone.</summary>
internal sealed class RangeScanCancelOperation : Operation<bool>
{
    public static RangeScanCancelOperation Create(ushort vbucket, byte[] scanId)
    {
        var operation = new RangeScanCancelOperation { PinnedVBucket = vbucket };
        operation.Prepare(Opcode.RangeScanCancel, ReadOnlySpan<byte>.Empty, scanId);
        operation.Seal();
        return operation;
    }

    protected override bool BuildResult() => Status switch
    {
        ResponseStatus.Success => true,
        ResponseStatus.KeyEnoent or ResponseStatus.RangeScanCancelled => false,
        _ => throw ScanErrors.For(this, Status),
    };

    protected override void ReturnToPool()
    {
    }
}
