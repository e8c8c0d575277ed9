using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.IO;

public class OperationCompletionTests
{
    private static MutationOperation NewOperation(string key)
    {
        var operation = MutationOperation.Create(Opcode.Set, key, null, default, 0);
        operation.Seal();
        operation.Start(TimeSpan.FromSeconds(10), TimeProvider.System, CancellationToken.None);
        return operation;
    }

    [Fact]
    public async Task ContinuationsRunOnThePoolNotOnTheCompletingThread()
    {
        var operation = NewOperation("k");
        // Await before completing, so the continuation is registered rather than run synchronously.
        var observing = ObserveContinuation(operation.AsValueTask());
        // A dedicated thread, not a pool one: a continuation run inline would show its id and IsThreadPoolThread false.
        var completer = new Thread(() => operation.CompleteWith(ResponseStatus.Success, cas: 42));
        completer.Start();

        var (cas, continuationThread, onPool) = await observing;
        completer.Join();

        Assert.Equal(42ul, cas);
        Assert.NotEqual(completer.ManagedThreadId, continuationThread);
        Assert.True(onPool);
    }

    // ConfigureAwait(false) so the continuation runs where the operation completes it, not on xunit's context.
    private static async Task<(ulong Cas, int Thread, bool OnPool)> ObserveContinuation(ValueTask<MutationResult> task)
    {
        var result = await task.ConfigureAwait(false);
        return (result.Cas, Environment.CurrentManagedThreadId, Thread.CurrentThread.IsThreadPoolThread);
    }

    [Fact]
    public async Task FailedStatusesSurfaceAsTypedExceptions()
    {
        var operation = NewOperation("missing-key");
        var task = operation.AsValueTask();
        operation.CompleteWith(ResponseStatus.KeyEnoent);
        var error = await Assert.ThrowsAsync<DocumentNotFoundException>(() => task.AsTask());
        Assert.Equal("missing-key", error.Key);
        Assert.Equal((ushort)ResponseStatus.KeyEnoent, error.Status);
    }
}
