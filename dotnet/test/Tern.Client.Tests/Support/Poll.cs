using System.Diagnostics;

namespace Tern.Client.Tests.Support;

/// <summary>
/// Waits for something another thread does (a read loop, a real server): polls the condition
/// until it holds, failing after a generous 10 s, so a busy machine never fails a test.
/// </summary>
public static class Poll
{
    public static Task Until(Func<bool> condition, string failure) => Until(() => Task.FromResult(condition()), failure);

    public static Task Until(Func<Task<bool>> condition, string failure) => Until(condition, failure, TimeSpan.FromSeconds(10), 20);

    /// <summary>
    /// For what waits on another process's background work (a transaction cleanup's window): a
    /// bound of 90 s. An interval of zero polls back to back, so a short-lived state is not missed.
    /// </summary>
    public static Task UntilLongAsync(Func<Task<bool>> condition, string failure, int intervalMs = 250) =>
        Until(condition, failure, TimeSpan.FromSeconds(90), intervalMs);

    private static async Task Until(Func<Task<bool>> condition, string failure, TimeSpan limit, int intervalMs)
    {
        var watch = Stopwatch.StartNew();
        while (!await condition())
        {
            Assert.True(watch.Elapsed < limit, failure);
            if (intervalMs > 0)
                await Task.Delay(intervalMs);
            else
                await Task.Yield();
        }
    }
}
