using Tern.Client.IO;

namespace Tern.Client.Tests.Support;

/// <summary>
/// A bootstrap step that lets the first <paramref name="passing"/> connections through and hangs every
/// later one until its token is cancelled, as a server stuck mid-handshake would.
/// </summary>
public sealed class HangingBootstrap(int passing = 0) : IConnectionInitializer
{
    private readonly TaskCompletionSource _hanging = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _calls;

    /// <summary>Completes when the first connection starts hanging: what a test waits for instead of sleeping.</summary>
    public Task Hanging => _hanging.Task;

    public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
    {
        if (Interlocked.Increment(ref _calls) <= passing)
            return;
        _hanging.TrySetResult();
        await Task.Delay(Timeout.Infinite, cancellationToken);
    }
}
