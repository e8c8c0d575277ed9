using System.Diagnostics;

namespace Tern.Client.Timing;

/// <summary>
/// A start timestamp of a <see cref="TimeProvider"/>: the SDK's options' (<see cref="TimeProvider.System"/>
/// unless a test gives a fake clock). Measuring an operation costs one
/// <see cref="TimeProvider.GetTimestamp"/> call and no allocation, unlike a <see cref="Stopwatch"/>
/// object. The default value has never been started; its elapsed time is measured from timestamp
/// zero of the system clock.
/// </summary>
public readonly struct LightweightStopwatch
{
    private readonly long _startTimestamp;
    private readonly TimeProvider? _time; // null only in default(LightweightStopwatch): read as TimeProvider.System

    private LightweightStopwatch(long startTimestamp, TimeProvider? time)
    {
        _startTimestamp = startTimestamp;
        _time = time;
    }

    public static LightweightStopwatch StartNew(TimeProvider time) => new(time.GetTimestamp(), time);

    public long StartTimestamp => _startTimestamp;

    private TimeProvider Time => _time ?? TimeProvider.System;

    public TimeSpan Elapsed => Time.GetElapsedTime(_startTimestamp);

    public long ElapsedMilliseconds => (long)Elapsed.TotalMilliseconds;

    /// <summary>The timestamp <paramref name="after"/> this stopwatch's start, for deadlines.</summary>
    public long TimestampAfter(TimeSpan after) => _startTimestamp + Time.ToTimestampTicks(after);
}

/// <summary>
/// A millisecond-resolution start time. On the system clock it reads <see cref="Environment.TickCount64"/>:
/// cheaper than <see cref="LightweightStopwatch"/> and good enough for idle and orphan tracking,
/// where the 10-16 ms granularity of the tick count does not matter. On any other
/// <see cref="TimeProvider"/> (a test's fake clock) it reads that provider's timestamps.
/// </summary>
public readonly struct CoarseStopwatch
{
    private readonly long _start; // TickCount64 milliseconds, or a timestamp of _time
    private readonly TimeProvider? _time; // null: the system tick count

    private CoarseStopwatch(long start, TimeProvider? time)
    {
        _start = start;
        _time = time;
    }

    public static CoarseStopwatch StartNew() => new(Environment.TickCount64, null);

    public static CoarseStopwatch StartNew(TimeProvider time) =>
        ReferenceEquals(time, TimeProvider.System) ? StartNew() : new(time.GetTimestamp(), time);

    public long ElapsedMilliseconds => _time is null ? Environment.TickCount64 - _start : (long)Elapsed.TotalMilliseconds;

    public TimeSpan Elapsed => _time is null ? TimeSpan.FromMilliseconds(ElapsedMilliseconds) : _time.GetElapsedTime(_start);
}
