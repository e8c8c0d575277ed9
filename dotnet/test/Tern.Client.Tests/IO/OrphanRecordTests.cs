using Microsoft.Extensions.Time.Testing;
using Tern.Client.IO;

namespace Tern.Client.Tests.IO;

public class OrphanRecordTests
{
    [Fact]
    public void ALateAnswerIsAsOldAsTheOperationWasWhenItTimedOutPlusTheTimeSince()
    {
        var time = new FakeTimeProvider();
        var timedOut = OrphanRecord.TimedOut("node#1", "GET", "k", 7, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2), time);
        time.Advance(TimeSpan.FromMilliseconds(1500));

        var answered = timedOut.Answered();

        Assert.True(answered.Known);
        Assert.Equal(TimeSpan.FromMilliseconds(3500), answered.Duration);
        Assert.Equal(TimeSpan.FromSeconds(1), answered.Timeout);
        Assert.Equal(("node#1", "GET", "k", 7u), (answered.Connection, answered.Operation, answered.Key, answered.Opaque));
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
