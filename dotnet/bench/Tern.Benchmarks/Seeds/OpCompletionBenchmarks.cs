using BenchmarkDotNet.Attributes;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Benchmarks.Seeds;

/// <summary>
/// Completing an operation off the connection's read loop: the read loop hands the outcome to a
/// thread-pool thread so user continuations never run on (and stall) the socket.
/// One invocation completes a batch of operations and waits until every completion has run, so
/// the time per operation is the hop to the pool, and the allocation per operation is what one
/// completion costs the garbage collector. The SDK's operations are pooled, so the batch reuses
/// one set of them; the old way allocated a TaskCompletionSource per operation.
/// </summary>
[MemoryDiagnoser]
public class OpCompletionBenchmarks
{
    private const int OperationsPerBatch = 1024;

    private readonly CompletionBatch _batch = new();
    private readonly BatchOperation[] _operations = new BatchOperation[OperationsPerBatch];
    private readonly Action<BatchOperation> _signal = static op => op.SignalBatch();

    [GlobalSetup]
    public void Setup()
    {
        for (var i = 0; i < _operations.Length; i++)
            _operations[i] = new BatchOperation(_batch);
    }

    [GlobalCleanup]
    public void Cleanup() => _batch.Dispose();

    /// <summary>The old way: each operation owns a TaskCompletionSource, completed from Task.Run.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = OperationsPerBatch)]
    public void TaskRun()
    {
        _batch.Start(OperationsPerBatch);
        for (var i = 0; i < OperationsPerBatch; i++)
        {
            var completion = new TaskCompletionSource<ResponseStatus>();
            Task.Run(() =>
            {
                completion.TrySetResult(ResponseStatus.Success);
                _batch.Signal();
            });
        }
        _batch.Wait();
    }

    /// <summary>Pooled operations queued with a cached static callback: the pool wraps each queueing in an object.</summary>
    [Benchmark(OperationsPerInvoke = OperationsPerBatch)]
    public void UnsafeQueueCallback()
    {
        _batch.Start(OperationsPerBatch);
        foreach (var operation in _operations)
            ThreadPool.UnsafeQueueUserWorkItem(_signal, operation, preferLocal: false);
        _batch.Wait();
    }

    /// <summary>The SDK: <see cref="OperationBase.CompleteWith"/> queues the operation itself (IThreadPoolWorkItem).</summary>
    [Benchmark(OperationsPerInvoke = OperationsPerBatch)]
    public void UnsafeQueueWorkItem()
    {
        _batch.Start(OperationsPerBatch);
        foreach (var operation in _operations)
            operation.CompleteWith(ResponseStatus.Success);
        _batch.Wait();
    }

    /// <summary>An SDK operation whose delivery only counts the batch down.</summary>
    private sealed class BatchOperation(CompletionBatch batch) : OperationBase
    {
        public void SignalBatch() => batch.Signal();

        protected override void Deliver() => SignalBatch();
    }
}
