using System.Diagnostics;
using Tern.Client.IO;

namespace Tern.Client.Tests.IO;

public class StopwatchTests
{
    [Fact]
    public void ElapsedGrowsFromTheStartTimestamp()
    {
        var start = Stopwatch.GetTimestamp() - Stopwatch.Frequency; // one second ago
        var watch = LightweightStopwatch.FromTimestamp(start);
        Assert.InRange(watch.ElapsedMilliseconds, 1000, 60_000);
        Assert.InRange(watch.Elapsed, TimeSpan.FromSeconds(1), TimeSpan.FromMinutes(1));
        Assert.True(watch.ElapsedTicks >= Stopwatch.Frequency);
    }

    [Fact]
    public void StartNewBeginsNow()
    {
        var before = Stopwatch.GetTimestamp();
        var watch = LightweightStopwatch.StartNew();
        Assert.InRange(watch.StartTimestamp, before, Stopwatch.GetTimestamp());
    }

    [Fact]
    public void TicksAndTimeSpansConvertBothWays()
    {
        var duration = TimeSpan.FromMilliseconds(1500);
        var ticks = LightweightStopwatch.ToTicks(duration);
        Assert.Equal(Stopwatch.Frequency * 3 / 2, ticks);
        Assert.Equal(duration, LightweightStopwatch.ToTimeSpan(ticks));
        var watch = LightweightStopwatch.FromTimestamp(100);
        Assert.Equal(100 + ticks, watch.TimestampAfter(duration));
    }

    [Fact]
    public void CoarseStopwatchFollowsTheTickCount()
    {
        var watch = CoarseStopwatch.StartNew();
        Assert.InRange(watch.StartMilliseconds, Environment.TickCount64 - 1000, Environment.TickCount64);
        Assert.True(watch.ElapsedMilliseconds >= 0);
    }

    [Fact]
    public void MeasuringAllocatesNothing()
    {
        var before = GC.GetAllocatedBytesForCurrentThread();
        long sum = 0;
        for (var i = 0; i < 1000; i++)
        {
            var watch = LightweightStopwatch.StartNew();
            sum += watch.ElapsedTicks + CoarseStopwatch.StartNew().ElapsedMilliseconds;
        }
        Assert.Equal(before, GC.GetAllocatedBytesForCurrentThread());
        Assert.True(sum >= 0);
    }
}
