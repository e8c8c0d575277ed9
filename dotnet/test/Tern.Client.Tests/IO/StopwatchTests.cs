using System.Diagnostics;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.IO;
using Tern.Client.Timing;

namespace Tern.Client.Tests.IO;

public class StopwatchTests
{
    [Fact]
    public void ElapsedFollowsTheClockItWasStartedOn()
    {
        var time = new FakeTimeProvider();
        var started = time.GetTimestamp();
        var watch = LightweightStopwatch.StartNew(time);
        time.Advance(TimeSpan.FromMilliseconds(1500.7));

        Assert.Equal(started, watch.StartTimestamp);
        Assert.Equal(TimeSpan.FromMilliseconds(1500.7), watch.Elapsed);
        Assert.Equal(1500, watch.ElapsedMilliseconds); // whole milliseconds, for timeout messages
    }

    [Fact]
    public void ADeadlineIsATimestampOfTheSameClock()
    {
        var time = new FakeTimeProvider();
        var watch = LightweightStopwatch.StartNew(time);
        time.Advance(TimeSpan.FromSeconds(1)); // a deadline counts from the start, not from now

        Assert.Equal(watch.StartTimestamp + time.TimestampFrequency * 2, watch.TimestampAfter(TimeSpan.FromSeconds(2)));
        Assert.Equal(time.GetTimestamp() + time.TimestampFrequency / 4, time.TimestampAfter(TimeSpan.FromMilliseconds(250)));
        Assert.Equal(TimeSpan.FromMilliseconds(250), time.Until(time.TimestampAfter(TimeSpan.FromMilliseconds(250))));
        Assert.Equal(TimeSpan.FromSeconds(-1), time.Until(time.GetTimestamp() - time.TimestampFrequency));
    }

    [Fact]
    public void DurationsConvertIntoTheSystemClocksUnits()
    {
        Assert.Equal(Stopwatch.Frequency * 3 / 2, TimeProvider.System.ToTimestampTicks(TimeSpan.FromMilliseconds(1500)));
    }

    [Fact]
    public void OnTheSystemClockItReadsStopwatchTimestamps()
    {
        var before = Stopwatch.GetTimestamp();
        var watch = LightweightStopwatch.StartNew(TimeProvider.System);
        Assert.InRange(watch.StartTimestamp, before, Stopwatch.GetTimestamp());
        // An operation never started measures from the system clock's timestamp zero.
        var sinceZero = TimeProvider.System.GetElapsedTime(0);
        Assert.InRange(default(LightweightStopwatch).Elapsed, sinceZero, TimeProvider.System.GetElapsedTime(0));
    }

    [Fact]
    public void CoarseStopwatchFollowsAFakeClock()
    {
        var time = new FakeTimeProvider();
        var watch = CoarseStopwatch.StartNew(time);
        time.Advance(TimeSpan.FromMilliseconds(250));

        Assert.Equal(250, watch.ElapsedMilliseconds);
        Assert.Equal(TimeSpan.FromMilliseconds(250), watch.Elapsed);
    }

    [Fact]
    public void MeasuringAllocatesNothing()
    {
        var system = TimeProvider.System;
        var fake = new FakeTimeProvider();
        var before = GC.GetAllocatedBytesForCurrentThread();
        long sum = 0;
        for (var i = 0; i < 1000; i++)
        {
            sum += LightweightStopwatch.StartNew(system).Elapsed.Ticks + LightweightStopwatch.StartNew(fake).Elapsed.Ticks
                + CoarseStopwatch.StartNew().ElapsedMilliseconds + CoarseStopwatch.StartNew(system).ElapsedMilliseconds
                + CoarseStopwatch.StartNew(fake).ElapsedMilliseconds;
        }
        Assert.Equal(before, GC.GetAllocatedBytesForCurrentThread());
        Assert.True(sum >= 0);
    }
}
