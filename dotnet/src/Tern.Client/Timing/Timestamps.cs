namespace Tern.Client.Timing;

/// <summary>
/// Deadlines as <see cref="TimeProvider"/> timestamps. A timestamp counts in its provider's
/// <see cref="TimeProvider.TimestampFrequency"/>, so deadlines and "now" must come from the same
/// provider: then a test's FakeTimeProvider drives every timeout, and checking a deadline costs
/// one <see cref="TimeProvider.GetTimestamp"/> call and no allocation.
/// </summary>
internal static class Timestamps
{
    /// <summary>A duration in the provider's timestamp units.</summary>
    public static long ToTimestampTicks(this TimeProvider time, TimeSpan duration) =>
        (long)(duration.Ticks * ((double)time.TimestampFrequency / TimeSpan.TicksPerSecond));

    /// <summary>The timestamp <paramref name="after"/> from now.</summary>
    public static long TimestampAfter(this TimeProvider time, TimeSpan after) =>
        time.GetTimestamp() + time.ToTimestampTicks(after);

    /// <summary>How long until <paramref name="timestamp"/>; zero or negative once it has passed.</summary>
    public static TimeSpan Until(this TimeProvider time, long timestamp) =>
        time.GetElapsedTime(time.GetTimestamp(), timestamp);
}
