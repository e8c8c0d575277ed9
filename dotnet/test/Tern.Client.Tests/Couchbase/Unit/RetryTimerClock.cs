using Microsoft.Extensions.Time.Testing;
using Tern.Client.Couchbase;
using Tern.Client.Operations;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// A <see cref="FakeTimeProvider"/> that tells the test when a timer it waits for is armed, so the
/// test advances the clock only once the SDK is waiting on it (no real-time guessing).
/// </summary>
internal sealed class RetryTimerClock : FakeTimeProvider
{
    private readonly object _lock = new();
    private readonly List<(Func<TimeSpan, TimeSpan, object?, bool> Match, TaskCompletionSource<TimeSpan> Armed)> _watches = new();

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = base.CreateTimer(callback, state, dueTime, period);
        List<TaskCompletionSource<TimeSpan>> armed = new();
        lock (_lock)
        {
            for (var i = _watches.Count - 1; i >= 0; i--)
            {
                if (_watches[i].Match(dueTime, period, state))
                {
                    armed.Add(_watches[i].Armed);
                    _watches.RemoveAt(i);
                }
            }
        }
        foreach (var signal in armed)
            signal.TrySetResult(dueTime);
        return timer;
    }

    /// <summary>Completes with the due time of the next timer <paramref name="match"/> (due, period, state) accepts.</summary>
    public Task<TimeSpan> NextTimer(Func<TimeSpan, TimeSpan, object?, bool> match)
    {
        var armed = new TaskCompletionSource<TimeSpan>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_lock)
            _watches.Add((match, armed));
        return armed.Task.WaitAsync(SafetyNet.Limit);
    }

    /// <summary>The next back-off of the couchbase retry step: how long it waits before sending an operation again.</summary>
    public Task<TimeSpan> NextRetryBackoff() =>
        NextTimer((_, _, state) => state is ValueTuple<RetryStep, OperationBase, RetryLog>);

    /// <summary>The next one-shot wait of exactly <paramref name="due"/> (e.g. a node pool's reconnect back-off).</summary>
    public Task<TimeSpan> NextDelayOf(TimeSpan due) =>
        NextTimer((d, period, state) => d == due && period == Timeout.InfiniteTimeSpan && state is not ValueTuple<RetryStep, OperationBase, RetryLog>);
}
