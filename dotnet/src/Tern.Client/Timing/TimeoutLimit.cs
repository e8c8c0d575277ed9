namespace Tern.Client.Timing;

/// <summary>The longest wait every timer, semaphore and CancelAfter accepts, and the cap that keeps timeouts within it.</summary>
internal static class TimeoutLimit
{
    // About 24.8 days.
    private static readonly TimeSpan Longest = TimeSpan.FromMilliseconds(int.MaxValue);

    /// <summary>
    /// A timeout every wait accepts: longer ones, such as <see cref="TimeSpan.MaxValue"/> meaning "as
    /// long as it takes", become the longest such wait instead of overflowing a deadline or a timer.
    /// </summary>
    public static TimeSpan Cap(TimeSpan timeout) => timeout > Longest ? Longest : timeout;
}
