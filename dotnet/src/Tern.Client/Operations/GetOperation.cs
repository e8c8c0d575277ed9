using System.Buffers;
using System.Buffers.Binary;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.Operations;

/// <summary>GET, GET_AND_TOUCH and GET_LOCKED: a document's content, flags and CAS.</summary>
public sealed class GetOperation : Operation<GetResult>
{
    private ITypeTranscoder _transcoder = JsonTranscoder.Default;
    private bool _missIsResult;
    private byte[]? _content;
    private int _contentLength;
    private uint _flags;
    private Datatype _datatype;

    /// <summary>
    /// <paramref name="argument"/> is the expiry (GET_AND_TOUCH) or lock time in seconds (GET_LOCKED);
    /// ignored by GET. With <paramref name="missIsResult"/> a missing document yields a result with Found false.
    /// </summary>
    public static GetOperation Create(Opcode opcode, string key, uint? collectionId, uint argument, bool missIsResult, ITypeTranscoder transcoder)
    {
        var operation = OperationPool<GetOperation>.Rent();
        Span<byte> extras = stackalloc byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(extras, argument);
        operation.Prepare(opcode, key, collectionId, opcode == Opcode.Get ? default : extras);
        operation.Seal();
        operation._missIsResult = missIsResult;
        operation._transcoder = transcoder;
        return operation;
    }

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (header.VBucketOrStatus != (ushort)ResponseStatus.Success)
            return;
        _flags = ReadFlags(header, body);
        _datatype = (Datatype)header.Datatype;
        var value = ValueOf(header, body);
        if ((_datatype & Datatype.Snappy) != 0)
        {
            (_content, _contentLength) = ValueCompression.Decompress(value, Key);
            _datatype &= ~Datatype.Snappy;
            return;
        }
        _contentLength = (int)value.Length;
        _content = ArrayPool<byte>.Shared.Rent(Math.Max(_contentLength, 1));
        value.CopyTo(_content);
    }

    protected override GetResult BuildResult()
    {
        if (Status == ResponseStatus.KeyEnoent && _missIsResult)
            return Tern.Client.GetResult.NotFound;
        if (Status != ResponseStatus.Success)
            throw StatusError();
        var result = new GetResult(found: true, _content!, _contentLength, ResponseCas, _flags, _datatype, _transcoder, rented: true)
        {
            IsActive = Opcode != Opcode.GetReplica,
        };
        _content = null;
        return result;
    }

    protected override void ResetState()
    {
        base.ResetState();
        if (_content is not null)
            ArrayPool<byte>.Shared.Return(_content);
        _content = null;
        _contentLength = 0;
        _transcoder = JsonTranscoder.Default;
    }

    protected override void ReturnToPool() => OperationPool<GetOperation>.Return(this);
}
