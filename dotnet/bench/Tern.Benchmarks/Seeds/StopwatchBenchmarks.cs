using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using Tern.Client.Timing;

namespace Tern.Benchmarks.Seeds;

/// <summary>
/// Timing one operation: start a clock when it is sent, read it when it completes.
/// The clock lives in the operation's state, as in the SDK; a purely local Stopwatch would let
/// .NET 10's escape analysis put it on the stack and hide the allocation the old way paid.
/// The SDK's clocks start on the TimeProvider its options hold (TimeProvider.System unless a
/// test gives another), so these rows do too: the LightweightStopwatch row pays the virtual
/// GetTimestamp calls every operation pays.
/// </summary>
[MemoryDiagnoser]
public class StopwatchBenchmarks
{
    private sealed class OperationTimings
    {
        public Stopwatch? Stopwatch;
        public LightweightStopwatch Lightweight;
        public CoarseStopwatch Coarse;
    }

    private readonly OperationTimings _op = new();

    // A field, as in the SDK's connection settings, so the JIT cannot treat the provider as a constant.
    private readonly TimeProvider _time = TimeProvider.System;

    [Benchmark(Baseline = true)]
    public TimeSpan Stopwatch()
    {
        _op.Stopwatch = System.Diagnostics.Stopwatch.StartNew();
        return _op.Stopwatch.Elapsed;
    }

    [Benchmark]
    public TimeSpan LightweightStopwatch()
    {
        _op.Lightweight = Tern.Client.Timing.LightweightStopwatch.StartNew(_time);
        return _op.Lightweight.Elapsed;
    }

    /// <summary>One read of the high-resolution clock: the floor under two of them.</summary>
    [Benchmark]
    public long OneClockRead() => System.Diagnostics.Stopwatch.GetTimestamp();

    [Benchmark]
    public TimeSpan CoarseStopwatch()
    {
        _op.Coarse = Tern.Client.Timing.CoarseStopwatch.StartNew(_time);
        return _op.Coarse.Elapsed;
    }
}
