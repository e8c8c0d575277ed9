using Tern.Client.Exceptions;

namespace Tern.Client.Protocol;

/// <summary>Expiry as the protocol wants it: seconds up to 30 days, an absolute Unix time beyond.</summary>
public static class Expiry
{
    public const uint RelativeLimitSeconds = 30 * 24 * 60 * 60;

    /// <summary>
    /// The wire value of <paramref name="expiry"/> for the document <paramref name="key"/>: null and zero
    /// mean "never expires". Beyond 30 days it is dated from <paramref name="clock"/>, the cluster's
    /// <see cref="ClusterOptions.TimeProvider"/>, so tests can fix "now".
    /// </summary>
    /// <exception cref="InvalidArgumentException">The expiry is negative: on the wire it could only
    /// become 0, "never expires", the opposite of what a moment already past asks for.</exception>
    public static uint ToWire(TimeSpan? expiry, TimeProvider clock, string key)
    {
        if (expiry is not { } value || value == TimeSpan.Zero)
            return 0;
        if (value < TimeSpan.Zero)
            throw new InvalidArgumentException(
                $"expiry {value} for key '{TernException.Describe(key)}' is negative; it must be zero (never expires) or more", key);
        // Round up: a sub-second expiry must not become "never expires".
        var seconds = (ulong)Math.Ceiling(value.TotalSeconds);
        if (seconds <= RelativeLimitSeconds)
            return (uint)seconds;
        var absolute = (ulong)clock.GetUtcNow().ToUnixTimeSeconds() + seconds;
        // uint.MaxValue is not a time to a counter: it means "do not create" (CounterOperation).
        return absolute >= uint.MaxValue ? uint.MaxValue - 1 : (uint)absolute;
    }
}
