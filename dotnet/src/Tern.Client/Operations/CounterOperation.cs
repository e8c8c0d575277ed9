using System.Buffers;
using System.Buffers.Binary;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>INCREMENT and DECREMENT: the response value is the counter's new u64.</summary>
public sealed class CounterOperation : Operation<CounterResult>
{
    /// <summary>Expiry value that makes the server fail on a missing counter instead of creating it.</summary>
    private const uint DoNotCreate = 0xffffffff;

    private ulong _value;
    private MutationTokenReader _token;

    public static CounterOperation Create(Opcode opcode, string key, uint? collectionId, ulong delta, ulong? initial, uint expiry,
        ReadOnlySpan<byte> framingExtras = default, DurabilityLevel durability = DurabilityLevel.None)
    {
        var operation = OperationPool<CounterOperation>.Rent();
        Span<byte> extras = stackalloc byte[20];
        BinaryPrimitives.WriteUInt64BigEndian(extras, delta);
        BinaryPrimitives.WriteUInt64BigEndian(extras[8..], initial ?? 0);
        BinaryPrimitives.WriteUInt32BigEndian(extras[16..], initial is null ? DoNotCreate : expiry);
        operation.Prepare(opcode, key, collectionId, extras, framingExtras: framingExtras);
        operation.Durability = durability;
        operation.Seal();
        return operation;
    }

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        _token.Capture(header, body);
        var value = ValueOf(header, body);
        if (header.VBucketOrStatus != (ushort)ResponseStatus.Success || value.Length != 8)
            return;
        Span<byte> bytes = stackalloc byte[8];
        value.CopyTo(bytes);
        _value = BinaryPrimitives.ReadUInt64BigEndian(bytes);
    }

    protected override CounterResult BuildResult() =>
        Status == ResponseStatus.Success ? new CounterResult(_value, ResponseCas, _token.Token(this)) : throw StatusError();

    protected override void ResetState()
    {
        base.ResetState();
        _value = 0;
        _token = default;
    }

    protected override void ReturnToPool() => OperationPool<CounterOperation>.Return(this);
}
