using Tern.Client.Couchbase;
using Tern.Client.Operations;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>RetryLog counts retries and names their reasons for timeout messages.</summary>
public class RetryLogTests
{
    [Fact]
    public void EachReasonIsNamedOnceInFirstOccurrenceOrderWithItsCount()
    {
        var log = new RetryLog();
        log.Add("not_my_vbucket");
        log.Add("locked");
        log.Add("locked");

        Assert.Equal("3 retries (not_my_vbucket, locked ×2)", log.Describe());
        Assert.Equal((3, 2, 1, 0), (log.Count, log.CountOf("locked"), log.CountOf("not_my_vbucket"), log.CountOf("etmpfail")));
    }

    [Fact]
    public void OneRetryIsSingular()
    {
        var log = new RetryLog();
        log.Add("etmpfail");

        Assert.Equal("1 retry (etmpfail)", log.Describe());
    }

    [Fact]
    public void InterleavedReasonsKeepTheirFirstPosition()
    {
        var log = new RetryLog();
        foreach (var reason in new[] { "locked", "etmpfail", "locked", "not_my_vbucket", "etmpfail", "locked" })
            log.Add(reason);

        Assert.Equal("6 retries (locked ×3, etmpfail ×2, not_my_vbucket)", log.Describe());
    }
}
