using System.Diagnostics;
using System.Globalization;

namespace Tern.Cli.Commands;

/// <summary>
/// How far an export or import is: documents and bytes so far, and the rate. On a terminal it
/// redraws one line on standard error four times a second; otherwise it stays silent until the
/// command prints its summary, so logs and pipes get one line.
/// </summary>
public sealed class TransferProgress : IAsyncDisposable
{
    private static readonly TimeSpan RedrawInterval = TimeSpan.FromMilliseconds(250);

    private readonly TextWriter _terminal;
    private readonly string _verb;
    private readonly Stopwatch _elapsed = Stopwatch.StartNew();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _drawing;
    private long _documents;
    private long _bytes;

    /// <summary><paramref name="terminal"/> is null when standard error is not a terminal: no redrawing then.</summary>
    public TransferProgress(string verb, TextWriter? terminal)
    {
        _verb = verb;
        _terminal = terminal ?? TextWriter.Null;
        _drawing = terminal is null ? Task.CompletedTask : DrawAsync();
    }

    public long Documents => Interlocked.Read(ref _documents);

    public long Bytes => Interlocked.Read(ref _bytes);

    public TimeSpan Elapsed => _elapsed.Elapsed;

    public void Add(long bytes)
    {
        Interlocked.Increment(ref _documents);
        Interlocked.Add(ref _bytes, bytes);
    }

    /// <summary>"1,000,000 documents, 118.2 MB in 41.3 s (24,213 documents/s)".</summary>
    public string Describe()
    {
        var seconds = Math.Max(Elapsed.TotalSeconds, 1e-3);
        return string.Format(CultureInfo.InvariantCulture, "{0:N0} documents, {1:F1} MB in {2:F1} s ({3:N0} documents/s)",
            Documents, Bytes / 1e6, seconds, Documents / seconds);
    }

    private async Task DrawAsync()
    {
        using var timer = new PeriodicTimer(RedrawInterval);
        try
        {
            while (await timer.WaitForNextTickAsync(_stop.Token).ConfigureAwait(false))
                await _terminal.WriteAsync($"\r{_verb}: {Describe()}   ").ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _drawing.ConfigureAwait(false);
        if (!ReferenceEquals(_terminal, TextWriter.Null))
            await _terminal.WriteAsync("\r\u001b[K").ConfigureAwait(false); // clear the line for the summary
        _stop.Dispose();
    }

    /// <summary>Standard error when it is a terminal, else null.</summary>
    public static TextWriter? TerminalOf(TextWriter error) =>
        ReferenceEquals(error, Console.Error) && !Console.IsErrorRedirected ? error : null;
}
