using System.IO.Pipelines;

namespace Tern.Client.IO;

/// <summary>
/// A pipe scheduler that queues the pipe's continuation with one reusable thread-pool work
/// item, where <see cref="PipeScheduler.ThreadPool"/> allocates a work item per wake-up. A pipe
/// schedules its reader at most once per read, so one item per pipe suffices; should a second
/// arrive while one is pending, it falls back to an ordinary queued callback.
/// </summary>
internal sealed class ReusableWorkItemScheduler : PipeScheduler, IThreadPoolWorkItem
{
    private Action<object?>? _action;
    private object? _state;
    private int _pending;

    public override void Schedule(Action<object?> action, object? state)
    {
        if (Interlocked.Exchange(ref _pending, 1) == 1)
        {
            System.Threading.ThreadPool.UnsafeQueueUserWorkItem(action, state, preferLocal: false);
            return;
        }
        _action = action;
        _state = state;
        System.Threading.ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
    }

    public void Execute()
    {
        var action = _action!;
        var state = _state;
        _action = null;
        _state = null;
        Volatile.Write(ref _pending, 0);
        action(state);
    }
}
