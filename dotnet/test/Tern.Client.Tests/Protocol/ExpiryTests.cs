using Tern.Client.Protocol;

namespace Tern.Client.Tests.Protocol;

public class ExpiryTests
{
    [Fact]
    public void ShortExpiriesAreRelativeSecondsRoundedUp()
    {
        Assert.Equal(0u, Expiry.ToWire(null));
        Assert.Equal(0u, Expiry.ToWire(TimeSpan.Zero));
        Assert.Equal(1u, Expiry.ToWire(TimeSpan.FromMilliseconds(10)));
        Assert.Equal(Expiry.RelativeLimitSeconds, Expiry.ToWire(TimeSpan.FromDays(30)));
    }

    [Fact]
    public void LongExpiriesAreAbsoluteUnixTimes()
    {
        var expected = DateTimeOffset.UtcNow.AddDays(31).ToUnixTimeSeconds();
        Assert.InRange((long)Expiry.ToWire(TimeSpan.FromDays(31)), expected - 5, expected + 5);
    }
}
