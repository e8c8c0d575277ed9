using Microsoft.Extensions.Time.Testing;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Protocol;

/// <summary>Expiry's wire values, exact: "now" is a fixed instant on a fake clock.</summary>
public class ExpiryTests
{
    // The 750 ms show that an absolute expiry counts from the whole second "now" falls in.
    private static readonly DateTimeOffset Now = new(2026, 3, 1, 12, 0, 0, 750, TimeSpan.Zero);
    private const uint NowUnixSeconds = 1_772_366_400; // 2026-03-01T12:00:00Z
    private const uint ThirtyDays = 2_592_000;

    private readonly FakeTimeProvider _clock = new(Now);

    private uint ToWire(TimeSpan? expiry) => Expiry.ToWire(expiry, _clock, "doc");

    [Fact]
    public void ShortExpiriesAreRelativeSecondsRoundedUp()
    {
        Assert.Equal(1u, ToWire(TimeSpan.FromMilliseconds(10)));
        Assert.Equal(1u, ToWire(TimeSpan.FromSeconds(1)));
        Assert.Equal(2u, ToWire(TimeSpan.FromMilliseconds(1001)));
        Assert.Equal(3600u, ToWire(TimeSpan.FromHours(1)));
    }

    [Fact]
    public void ThirtyDaysIsTheLastRelativeValueAndAnythingLongerIsAnAbsoluteUnixTime()
    {
        Assert.Equal(ThirtyDays, Expiry.RelativeLimitSeconds);
        Assert.Equal(ThirtyDays, ToWire(TimeSpan.FromDays(30)));
        // Rounded up to 30 days and a second, which no longer fits the relative range.
        Assert.Equal(NowUnixSeconds + ThirtyDays + 1, ToWire(TimeSpan.FromDays(30) + TimeSpan.FromMilliseconds(1)));
        Assert.Equal(NowUnixSeconds + ThirtyDays + 1, ToWire(TimeSpan.FromDays(30) + TimeSpan.FromSeconds(1)));
        Assert.Equal(1_775_044_800u, ToWire(TimeSpan.FromDays(31))); // 2026-04-01T12:00:00Z
    }

    [Fact]
    public void AbsoluteTimesAreDatedFromTheClockAtEachCall()
    {
        Assert.Equal(NowUnixSeconds + 31 * 86_400u, ToWire(TimeSpan.FromDays(31)));
        _clock.Advance(TimeSpan.FromDays(1));
        Assert.Equal(NowUnixSeconds + 32 * 86_400u, ToWire(TimeSpan.FromDays(31)));
        // Relative values do not depend on the clock.
        Assert.Equal(ThirtyDays, ToWire(TimeSpan.FromDays(30)));
    }

    [Fact]
    public void AbsoluteTimesStopShortOfTheValueThatTellsACounterNotToBeCreated()
    {
        var largestTime = uint.MaxValue - 1;
        Assert.Equal(largestTime - 1, ToWire(TimeSpan.FromSeconds(largestTime - 1 - NowUnixSeconds)));
        Assert.Equal(largestTime, ToWire(TimeSpan.FromSeconds(largestTime - NowUnixSeconds)));
        Assert.Equal(largestTime, ToWire(TimeSpan.FromSeconds(uint.MaxValue - NowUnixSeconds)));
        Assert.Equal(largestTime, ToWire(TimeSpan.MaxValue));
    }

    /// <summary>Zero means "keep until removed" on the wire, and so does no expiry at all.</summary>
    [Fact]
    public void NoExpiryAndZeroAreSentAsZero()
    {
        Assert.Equal(0u, ToWire(null));
        Assert.Equal(0u, ToWire(TimeSpan.Zero));
    }

    /// <summary>
    /// A negative expiry, such as one computed from a moment already past, could only be sent as 0,
    /// "never expires": the opposite of what it asks for, so it is refused before anything is sent.
    /// </summary>
    [Fact]
    public void NegativeExpiriesAreRefusedNamingTheKey()
    {
        var fiveMinutesAgo = Now.AddMinutes(-5);
        var error = Assert.Throws<InvalidArgumentException>(() => ToWire(fiveMinutesAgo - _clock.GetUtcNow()));
        Assert.Equal("expiry -00:05:00 for key 'doc' is negative; it must be zero (never expires) or more", error.Message);
        Assert.Equal("doc", error.Key);
        Assert.Throws<InvalidArgumentException>(() => ToWire(TimeSpan.MinValue));
        Assert.Throws<InvalidArgumentException>(() => ToWire(TimeSpan.FromTicks(-1)));
    }
}
