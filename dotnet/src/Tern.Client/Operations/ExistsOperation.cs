using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Existence check through GET, the one read every memcached-protocol server has (plain
/// memcached lacks GET_META). The value travels but is never copied.
/// </summary>
public sealed class ExistsOperation : Operation<ExistsResult>
{
    public static ExistsOperation Create(string key, uint? collectionId)
    {
        var operation = OperationPool<ExistsOperation>.Rent();
        operation.Prepare(Opcode.Get, key, collectionId, default);
        operation.Seal();
        return operation;
    }

    protected override ExistsResult BuildResult() => Status switch
    {
        ResponseStatus.Success => new ExistsResult(true, ResponseCas),
        ResponseStatus.KeyEnoent => new ExistsResult(false, 0),
        _ => throw StatusError(),
    };

    protected override void ReturnToPool() => OperationPool<ExistsOperation>.Return(this);
}
