using Microsoft.Extensions.Time.Testing;

namespace Tern.Client.Tests.Transactions.Unit;

/// <summary>
/// A clock that moves only when code waits on it, and by exactly as long as it waits: a timer
/// (Task.Delay's) moves the <see cref="FakeTimeProvider"/> on by its due time and fires at once.
/// A transaction's back-offs and polls then take no real time, and its expiry comes after the
/// same sequence of steps on any machine, however busy.
/// </summary>
internal sealed class SteppingTime(FakeTimeProvider clock) : TimeProvider
{
    public override DateTimeOffset GetUtcNow() => clock.GetUtcNow();

    public override long GetTimestamp() => clock.GetTimestamp();

    public override long TimestampFrequency => clock.TimestampFrequency;

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        if (dueTime != Timeout.InfiniteTimeSpan)
        {
            if (dueTime > TimeSpan.Zero)
                clock.Advance(dueTime);
            ThreadPool.UnsafeQueueUserWorkItem(_ => callback(state), null);
        }
        return new Fired();
    }

    private sealed class Fired : ITimer
    {
        public bool Change(TimeSpan dueTime, TimeSpan period) => false;

        public void Dispose()
        {
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
