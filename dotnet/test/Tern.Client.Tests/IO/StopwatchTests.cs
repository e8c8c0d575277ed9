using System.Diagnostics;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.IO;

namespace Tern.Client.Tests.IO;

public class StopwatchTests
{
    [Fact]
    public void ElapsedFollowsTheClockItWasStartedOn()
    {
        var time = new FakeTimeProvider();
        var watch = LightweightStopwatch.StartNew(time);
        time.Advance(TimeSpan.FromMilliseconds(1500));

        Assert.Equal(TimeSpan.FromMilliseconds(1500), watch.Elapsed);
        Assert.Equal(1500, watch.ElapsedMilliseconds);
        Assert.Equal(1500.0, watch.ElapsedMillisecondsPrecise);
        Assert.Equal(time.TimestampFrequency * 3 / 2, watch.ElapsedTicks);
        Assert.Same(time, watch.Time);
    }

    [Fact]
    public void ADeadlineIsATimestampOfTheSameClock()
    {
        var time = new FakeTimeProvider();
        var watch = LightweightStopwatch.FromTimestamp(100, time);

        Assert.Equal(100 + time.TimestampFrequency * 2, watch.TimestampAfter(TimeSpan.FromSeconds(2)));
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
    public void WithoutAClockItReadsTheSystemClock()
    {
        var before = Stopwatch.GetTimestamp();
        var watch = LightweightStopwatch.StartNew();
        Assert.InRange(watch.StartTimestamp, before, Stopwatch.GetTimestamp());
        Assert.Same(TimeProvider.System, watch.Time);
        Assert.Same(TimeProvider.System, default(LightweightStopwatch).Time);
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
            sum += LightweightStopwatch.StartNew().ElapsedTicks + LightweightStopwatch.StartNew(system).ElapsedTicks
                + LightweightStopwatch.StartNew(fake).ElapsedTicks
                + CoarseStopwatch.StartNew().ElapsedMilliseconds + CoarseStopwatch.StartNew(system).ElapsedMilliseconds
                + CoarseStopwatch.StartNew(fake).ElapsedMilliseconds;
        }
        Assert.Equal(before, GC.GetAllocatedBytesForCurrentThread());
        Assert.True(sum >= 0);
    }
}
