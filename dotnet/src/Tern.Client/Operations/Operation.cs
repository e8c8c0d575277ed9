using System.Threading.Tasks.Sources;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// An operation whose caller awaits a <see cref="ValueTask{TResult}"/> backed by the operation
/// itself (<see cref="IValueTaskSource{TResult}"/>), so awaiting allocates nothing. The operation
/// returns to its pool once the caller has read the result: await it exactly once.
/// </summary>
public abstract class Operation<TResult> : OperationBase, IValueTaskSource<TResult>
{
    // Continuations run inline in Deliver, which already runs on a thread-pool thread.
    private ManualResetValueTaskSourceCore<TResult> _core;

    public ValueTask<TResult> AsValueTask() => new(this, _core.Version);

    /// <summary>Builds the result from a response, or throws the typed exception for its status.</summary>
    protected abstract TResult BuildResult();

    protected sealed override void Deliver()
    {
        if (Error is not null)
        {
            _core.SetException(Error);
            return;
        }
        TResult result;
        try
        {
            result = BuildResult();
        }
        catch (Exception e)
        {
            _core.SetException(e);
            return;
        }
        _core.SetResult(result);
    }

    /// <summary>The exception for a failed status, naming the key.</summary>
    protected Exception StatusError() => StatusErrors.For(Opcode, Status, Key, hadCas: RequestCas != 0, Durability, Keyspace);

    public TResult GetResult(short token)
    {
        try
        {
            return _core.GetResult(token);
        }
        finally
        {
            ResetState();
            _core.Reset();
            ReturnToPool();
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    /// <summary>Gives the object back to its type's pool (see <see cref="OperationPool{T}"/>).</summary>
    protected abstract void ReturnToPool();
}
