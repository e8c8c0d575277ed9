using Tern.Client.IO;

namespace Tern.Client.Tests.IO;

public class OrphanRecordTests
{
    [Fact]
    public void ALateAnswerIsAsOldAsTheOperationWasWhenItTimedOutPlusTheTimeSince()
    {
        var timedOut = OrphanRecord.TimedOut("node#1", "GET", "k", 7, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2));
        var answered = timedOut.Answered();
        Assert.True(answered.Known);
        Assert.InRange(answered.Duration, TimeSpan.FromSeconds(2), TimeSpan.FromMinutes(1));
        Assert.Equal(TimeSpan.FromSeconds(1), answered.Timeout);
        Assert.InRange(answered.TimedOutAt.StartMilliseconds, 1, CoarseStopwatch.NowMilliseconds);
    }

    [Fact]
    public void AnAnswerNoOperationWaitedForHasNoAge()
    {
        var answered = OrphanRecord.Unknown("node#1", "GET", 7).Answered();
        Assert.False(answered.Known);
        Assert.Equal(TimeSpan.Zero, answered.Duration);
        Assert.Equal("", answered.Key);
    }
}
