using System.Buffers;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Commands answered by a CAS alone: SET, ADD, REPLACE, DELETE, APPEND, PREPEND, TOUCH, UNLOCK.
/// The caller appends the value (if any) through <see cref="OperationBase.Request"/>, then seals.
/// With MutationSeqno negotiated the answer also carries the mutation token.
/// </summary>
public sealed class MutationOperation : Operation<MutationResult>
{
    private MutationTokenReader _token;

    public static MutationOperation Create(Opcode opcode, string key, uint? collectionId, ReadOnlySpan<byte> extras, ulong cas,
        ReadOnlySpan<byte> framingExtras = default, DurabilityLevel durability = DurabilityLevel.None)
    {
        var operation = OperationPool<MutationOperation>.Rent();
        operation.Prepare(opcode, key, collectionId, extras, cas, framingExtras);
        operation.Durability = durability;
        return operation;
    }

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body) => _token.Capture(header, body);

    protected override MutationResult BuildResult() =>
        Status == ResponseStatus.Success ? new MutationResult(ResponseCas, _token.Token(this)) : throw StatusError();

    protected override void ResetState()
    {
        base.ResetState();
        _token = default;
    }

    protected override void ReturnToPool() => OperationPool<MutationOperation>.Return(this);
}
