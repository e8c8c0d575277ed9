using Microsoft.Extensions.Logging;
using System.Text;
using Tern.Client.Timing;

namespace Tern.Client.IO;

/// <summary>
/// A response that arrived after its operation timed out (<see cref="Known"/>), or one no operation
/// was waiting for. <see cref="Duration"/> is the operation's age: its precise age when it timed
/// out, plus the coarse time since (<see cref="TimedOutAt"/>), which is all an orphan's age needs.
/// </summary>
internal readonly record struct OrphanRecord(
    string Connection, string Operation, string Key, uint Opaque, bool Known, TimeSpan Timeout, TimeSpan Duration,
    CoarseStopwatch TimedOutAt)
{
    /// <summary>
    /// What a connection remembers of an operation it times out now, <paramref name="age"/> after it
    /// started; <paramref name="time"/> measures the time until the late response.
    /// </summary>
    public static OrphanRecord TimedOut(string connection, string operation, string key, uint opaque, TimeSpan timeout, TimeSpan age,
        TimeProvider time) =>
        new(connection, operation, key, opaque, true, timeout, age, CoarseStopwatch.StartNew(time));

    /// <summary>A response whose opaque matches no operation the connection remembers.</summary>
    public static OrphanRecord Unknown(string connection, string operation, uint opaque) =>
        new(connection, operation, "", opaque, false, TimeSpan.Zero, TimeSpan.Zero, default);

    /// <summary>This record as its late response arrives: the operation's age includes the time since it timed out.</summary>
    public OrphanRecord Answered() => Known ? this with { Duration = Duration + TimedOutAt.Elapsed } : this;
}

/// <summary>
/// Counts orphaned responses and logs, once per interval, a summary naming the slowest few
/// (rather than one log line per orphan, which would flood the log when a server stalls).
/// </summary>
internal sealed class OrphanReporter : IDisposable
{
    private readonly ILogger _logger;
    private readonly int _sampleSize;
    private readonly object _lock = new();
    private readonly List<OrphanRecord> _slowest = new();
    private readonly ITimer _timer;
    private long _total;
    private long _sinceLastReport;

    public OrphanReporter(ILogger logger, TimeSpan interval, int sampleSize, TimeProvider time)
    {
        _logger = logger;
        _sampleSize = Math.Max(1, sampleSize);
        using (ExecutionContext.SuppressFlow())
            _timer = time.CreateTimer(static state => ((OrphanReporter)state!).LogSummary(), this, interval, interval);
    }

    public long Total => Interlocked.Read(ref _total);

    public void Report(OrphanRecord orphan)
    {
        lock (_lock)
        {
            _total++;
            _sinceLastReport++;
            if (_slowest.Count < _sampleSize)
            {
                _slowest.Add(orphan);
                return;
            }
            var fastest = 0;
            for (var i = 1; i < _slowest.Count; i++)
            {
                if (_slowest[i].Duration < _slowest[fastest].Duration)
                    fastest = i;
            }
            if (orphan.Duration > _slowest[fastest].Duration)
                _slowest[fastest] = orphan;
        }
    }

    /// <summary>Logs and clears what was reported since the last summary; returns the summary, or null if there was none.</summary>
    public string? LogSummary()
    {
        string summary;
        lock (_lock)
        {
            if (_sinceLastReport == 0)
                return null;
            _slowest.Sort((a, b) => b.Duration.CompareTo(a.Duration));
            var text = new StringBuilder();
            text.Append(_sinceLastReport).Append(" orphaned responses (").Append(_total).Append(" in total); slowest:");
            foreach (var orphan in _slowest)
            {
                text.Append(' ').Append(orphan.Operation).Append(" '").Append(orphan.Key).Append("' on ").Append(orphan.Connection)
                    .Append(" opaque ").Append(orphan.Opaque);
                if (orphan.Known)
                    text.Append(" answered after ").Append(orphan.Duration.TotalMilliseconds.ToString("0"))
                        .Append(" ms (timeout ").Append(orphan.Timeout.TotalMilliseconds.ToString("0")).Append(" ms)");
                text.Append(';');
            }
            summary = text.ToString();
            _slowest.Clear();
            _sinceLastReport = 0;
        }
        _logger.LogWarning("{OrphanSummary}", summary);
        return summary;
    }

    public void Dispose() => _timer.Dispose();
}
