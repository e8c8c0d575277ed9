using System.Buffers;
using System.Buffers.Binary;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Reads the 16 bytes of extras (vbucket UUID, sequence number) a Couchbase server adds to a
/// successful mutation's answer when MutationSeqno is negotiated. A struct held by the operation:
/// no allocation.
/// </summary>
internal struct MutationTokenReader
{
    private const int ExtrasLength = 16;

    private bool _present;
    private ulong _uuid;
    private ulong _seqno;

    public void Capture(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (header.VBucketOrStatus != (ushort)ResponseStatus.Success || header.ExtrasLength != ExtrasLength)
            return;
        Span<byte> extras = stackalloc byte[ExtrasLength];
        body.Slice(header.FramingExtrasLength, ExtrasLength).CopyTo(extras);
        _uuid = BinaryPrimitives.ReadUInt64BigEndian(extras);
        _seqno = BinaryPrimitives.ReadUInt64BigEndian(extras[8..]);
        _present = true;
    }

    /// <summary>The token, named by the operation's bucket and vbucket; null when the server sent none.</summary>
    public readonly MutationToken? Token(OperationBase operation) =>
        _present ? new MutationToken(operation.Keyspace?.BucketName ?? "", operation.VBucket, _uuid, _seqno) : null;
}
