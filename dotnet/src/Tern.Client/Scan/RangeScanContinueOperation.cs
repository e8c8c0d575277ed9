using System.Buffers;
using System.Buffers.Binary;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.Scan;

/// <summary>One continue's items, and whether the vbucket's scan is complete.</summary>
internal sealed record ScanBatch(List<IScanResult> Items, bool Complete);

/// <summary>
/// RANGE_SCAN_CONTINUE (0xdb): the next items of a scan, within item, time and byte limits. The
/// server answers with Success frames of items and a last frame, with or without items, of
/// RangeScanMore or RangeScanComplete: the operation streams them (<see cref="OperationBase.StreamsFrames"/>)
/// and completes with all. KeyEnoent: the server no longer knows the scan (cancelled for idling,
/// or the vbucket moved). Not pooled: a frame may still arrive after a timeout.
/// </summary>
internal sealed class RangeScanContinueOperation : Operation<ScanBatch>
{
    public const int IdLength = 16;

    private readonly List<IScanResult> _items = [];
    private ITypeTranscoder _transcoder = null!;

    private RangeScanContinueOperation()
    {
        StreamsFrames = true;
    }

    public static RangeScanContinueOperation Create(ushort vbucket, byte[] scanId, uint itemLimit, TimeSpan timeLimit, uint byteLimit,
        ITypeTranscoder transcoder)
    {
        var operation = new RangeScanContinueOperation { PinnedVBucket = vbucket, _transcoder = transcoder };
        Span<byte> extras = stackalloc byte[IdLength + 12];
        scanId.CopyTo(extras);
        BinaryPrimitives.WriteUInt32BigEndian(extras[IdLength..], itemLimit);
        BinaryPrimitives.WriteUInt32BigEndian(extras[(IdLength + 4)..], (uint)timeLimit.TotalMilliseconds);
        BinaryPrimitives.WriteUInt32BigEndian(extras[(IdLength + 8)..], byteLimit);
        operation.Prepare(Opcode.RangeScanContinue, ReadOnlySpan<byte>.Empty, extras);
        operation.Seal();
        return operation;
    }

    internal override void OnIntermediateFrame(in FrameHeader header, in ReadOnlySequence<byte> body) => ReadItems(header, body);

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (Status is ResponseStatus.RangeScanMore or ResponseStatus.RangeScanComplete)
            ReadItems(header, body);
    }

    private void ReadItems(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        var value = ValueOf(header, body);
        if (value.Length == 0)
            return;
        if (header.ExtrasLength != 4)
            throw new Exceptions.TernException($"the server sent a range scan frame with {header.ExtrasLength} bytes of extras, not 4");
        Span<byte> layout = stackalloc byte[4];
        body.Slice(header.FramingExtrasLength, 4).CopyTo(layout);
        // One copy per frame, which its documents share.
        ScanFrame.Read(BinaryPrimitives.ReadUInt32BigEndian(layout), value.ToArray(), _transcoder, _items);
    }

    protected override ScanBatch BuildResult() => Status switch
    {
        ResponseStatus.RangeScanMore => new ScanBatch(_items, Complete: false),
        ResponseStatus.RangeScanComplete => new ScanBatch(_items, Complete: true),
        _ => throw ScanErrors.For(this, Status),
    };

    protected override void ReturnToPool()
    {
    }
}
