using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Testing;

namespace Tern.Client.Tests.Support;

/// <summary>
/// The SDK's log, captured with FakeLogger at every level, for a cluster's
/// <see cref="ClusterOptions.LoggerFactory"/>. Tests wait on it for what the SDK reports.
/// </summary>
public sealed class CapturedLog : IDisposable
{
    // Generous: the event is due at once; the bound only turns a hang into a failure.
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    private readonly SemaphoreSlim _arrived = new(0);
    private readonly LoggerFactory _factory;

    public CapturedLog()
    {
        Collector = FakeLogCollector.Create(new FakeLogCollectorOptions { OutputSink = _ => _arrived.Release() });
        _factory = new LoggerFactory([new FakeLoggerProvider(Collector)]);
    }

    public FakeLogCollector Collector { get; }

    public ILoggerFactory Factory => _factory;

    /// <summary>The messages logged so far that contain <paramref name="text"/>, oldest first.</summary>
    public IReadOnlyList<string> Messages(string text) =>
        Collector.GetSnapshot().Select(r => r.Message).Where(m => m.Contains(text, StringComparison.Ordinal)).ToList();

    /// <summary>Waits until <paramref name="count"/> messages containing <paramref name="text"/> were logged; returns them all.</summary>
    public async Task<IReadOnlyList<string>> WaitForAsync(string text, int count = 1)
    {
        var waited = Stopwatch.StartNew();
        while (true)
        {
            var found = Messages(text);
            if (found.Count >= count)
                return found;
            Assert.True(waited.Elapsed < Patience,
                $"{found.Count} of {count} messages containing '{text}' were logged: {string.Join(" | ", Messages(""))}");
            // The sink signals each record; the short wait also covers a signal sent just before the record was stored.
            await _arrived.WaitAsync(TimeSpan.FromMilliseconds(50));
        }
    }

    public void Dispose()
    {
        _factory.Dispose();
        _arrived.Dispose();
    }
}
