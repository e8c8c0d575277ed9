namespace Tern.Client.Protocol;

/// <summary>Expiry as the protocol wants it: seconds up to 30 days, an absolute Unix time beyond.</summary>
public static class Expiry
{
    public const uint RelativeLimitSeconds = 30 * 24 * 60 * 60;

    public static uint ToWire(TimeSpan? expiry)
    {
        if (expiry is not { } value || value <= TimeSpan.Zero)
            return 0;
        // Round up: a sub-second expiry must not become "never expires".
        var seconds = (ulong)Math.Ceiling(value.TotalSeconds);
        if (seconds <= RelativeLimitSeconds)
            return (uint)seconds;
        var absolute = (ulong)DateTimeOffset.UtcNow.ToUnixTimeSeconds() + seconds;
        return absolute >= uint.MaxValue ? uint.MaxValue - 1 : (uint)absolute;
    }
}
