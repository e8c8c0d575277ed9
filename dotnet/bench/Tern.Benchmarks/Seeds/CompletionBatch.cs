namespace Tern.Benchmarks.Seeds;

/// <summary>
/// Counts a batch of completions down to zero and wakes the waiting benchmark thread once,
/// so a benchmark measures the completion hops and not one wake-up per operation.
/// Reused across batches; allocates nothing after construction.
/// </summary>
internal sealed class CompletionBatch : IDisposable
{
    private readonly ManualResetEventSlim _done = new(initialState: false);
    private int _remaining;

    public void Start(int count)
    {
        _done.Reset();
        Volatile.Write(ref _remaining, count);
    }

    public void Signal()
    {
        if (Interlocked.Decrement(ref _remaining) == 0)
        {
            _done.Set();
        }
    }

    public void Wait() => _done.Wait();

    public void Dispose() => _done.Dispose();
}
