using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Commands answered by a CAS alone: SET, ADD, REPLACE, DELETE, APPEND, PREPEND, TOUCH, UNLOCK.
/// The caller appends the value (if any) through <see cref="OperationBase.Request"/>, then seals.
/// </summary>
public sealed class MutationOperation : Operation<MutationResult>
{
    public static MutationOperation Create(Opcode opcode, string key, uint? collectionId, ReadOnlySpan<byte> extras, ulong cas)
    {
        var operation = OperationPool<MutationOperation>.Rent();
        operation.Prepare(opcode, key, collectionId, extras, cas);
        return operation;
    }

    protected override MutationResult BuildResult() =>
        Status == ResponseStatus.Success ? new MutationResult(ResponseCas) : throw StatusError();

    protected override void ReturnToPool() => OperationPool<MutationOperation>.Return(this);
}
