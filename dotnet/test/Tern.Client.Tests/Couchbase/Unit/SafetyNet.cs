namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// A generous real-time bound on awaiting the SDK, so that a broken SDK fails a test instead of
/// hanging it. Never a timing assertion: every wait the tests measure runs on the fake clock.
/// </summary>
internal static class SafetyNet
{
    public static readonly TimeSpan Limit = TimeSpan.FromSeconds(10);

    public static Task<T> Soon<T>(this ValueTask<T> operation) => operation.AsTask().WaitAsync(Limit);

    public static Task<T> Soon<T>(this Task<T> operation) => operation.WaitAsync(Limit);
}
