using System.Diagnostics;

namespace Tern.Client.Tests.Support;

/// <summary>
/// Waits for something another thread does (a read loop, a real server): polls the condition
/// until it holds, failing after a generous 10 s, so a busy machine never fails a test.
/// </summary>
public static class Poll
{
    public static Task Until(Func<bool> condition, string failure) => Until(() => Task.FromResult(condition()), failure);

    public static async Task Until(Func<Task<bool>> condition, string failure)
    {
        var watch = Stopwatch.StartNew();
        while (!await condition())
        {
            Assert.True(watch.Elapsed < TimeSpan.FromSeconds(10), failure);
            await Task.Delay(20);
        }
    }
}
