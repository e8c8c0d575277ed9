using System.Diagnostics;

namespace Tern.Client.IO;

/// <summary>
/// A start timestamp in <see cref="Stopwatch"/> ticks. Measuring an operation costs one
/// <see cref="Stopwatch.GetTimestamp"/> call and no allocation, unlike a <see cref="Stopwatch"/> object.
/// The default value has never been started; its elapsed time is measured from timestamp zero.
/// </summary>
public readonly struct LightweightStopwatch
{
    private readonly long _startTimestamp;

    private LightweightStopwatch(long startTimestamp) => _startTimestamp = startTimestamp;

    public static LightweightStopwatch StartNew() => new(Stopwatch.GetTimestamp());

    /// <summary>Wraps a timestamp already taken with <see cref="Stopwatch.GetTimestamp"/>.</summary>
    public static LightweightStopwatch FromTimestamp(long startTimestamp) => new(startTimestamp);

    public long StartTimestamp => _startTimestamp;

    /// <summary>Elapsed time in <see cref="Stopwatch"/> ticks (see <see cref="Stopwatch.Frequency"/>).</summary>
    public long ElapsedTicks => Stopwatch.GetTimestamp() - _startTimestamp;

    public TimeSpan Elapsed => Stopwatch.GetElapsedTime(_startTimestamp);

    public long ElapsedMilliseconds => ElapsedTicks * 1000 / Stopwatch.Frequency;

    public double ElapsedMillisecondsPrecise => ElapsedTicks * 1000.0 / Stopwatch.Frequency;

    /// <summary>The timestamp <paramref name="after"/> this stopwatch's start, for deadlines.</summary>
    public long TimestampAfter(TimeSpan after) => _startTimestamp + ToTicks(after);

    /// <summary>Converts a duration into <see cref="Stopwatch"/> ticks.</summary>
    public static long ToTicks(TimeSpan duration) =>
        (long)(duration.Ticks * ((double)Stopwatch.Frequency / TimeSpan.TicksPerSecond));

    /// <summary>Converts <see cref="Stopwatch"/> ticks into a duration.</summary>
    public static TimeSpan ToTimeSpan(long stopwatchTicks) =>
        TimeSpan.FromTicks((long)(stopwatchTicks * ((double)TimeSpan.TicksPerSecond / Stopwatch.Frequency)));
}

/// <summary>
/// A millisecond-resolution start time over <see cref="Environment.TickCount64"/>: cheaper than
/// <see cref="LightweightStopwatch"/> and good enough for idle and orphan tracking, where the
/// 10-16 ms granularity of the tick count does not matter.
/// </summary>
public readonly struct CoarseStopwatch
{
    private readonly long _startMilliseconds;

    private CoarseStopwatch(long startMilliseconds) => _startMilliseconds = startMilliseconds;

    public static CoarseStopwatch StartNew() => new(Environment.TickCount64);

    public static long NowMilliseconds => Environment.TickCount64;

    public long StartMilliseconds => _startMilliseconds;

    public long ElapsedMilliseconds => Environment.TickCount64 - _startMilliseconds;

    public TimeSpan Elapsed => TimeSpan.FromMilliseconds(ElapsedMilliseconds);
}
