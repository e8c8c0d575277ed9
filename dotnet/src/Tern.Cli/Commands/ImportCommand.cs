using System.Text.Json;
using Tern.Client;
using Tern.Client.Exceptions;

namespace Tern.Cli.Commands;

/// <summary>
/// import --format lines|list --input FILE --generate-key EXPR [--concurrency N]: upserts every
/// document of FILE (- for standard input), in cbimport's formats and with its key expressions
/// (<see cref="KeyTemplate"/>), with up to N upserts in flight. An entry that is not JSON, or whose
/// key cannot be made, is skipped and reported with its place, and the rest goes on; temporary
/// failures and timeouts are retried (an upsert of the same content may be applied twice).
/// Prints the imported, skipped and failed counts; exits 1 unless everything was imported.
/// </summary>
public static class ImportCommand
{
    private const int MaxAttempts = 5;
    private const int ReportLimit = 20;

    public static async Task<int> RunAsync(CommandContext context)
    {
        context.Args.AtMost(0);
        var format = DocumentFormats.Parse(context.Args);
        var path = context.Args.Option("input") ?? throw new UsageException("import: --input FILE is required (- for standard input)");
        var template = KeyTemplate.Parse(context.Args.Option("generate-key") ??
            throw new UsageException("import: --generate-key EXPR is required, e.g. %id% or key::%name%::#MONO_INCR# (see cbimport json)"));
        var concurrency = context.Args.PositiveOption("concurrency", 64);
        var collection = await context.ConnectAsync();

        await using var input = path == "-" ? Console.OpenStandardInput() : new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 20, useAsync: true);
        using var window = new SemaphoreSlim(concurrency);
        var tally = new Tally(context.Error);
        await using (var progress = new TransferProgress("import", TransferProgress.TerminalOf(context.Error)))
        {
            var upserts = new List<Task>();
            await foreach (var entry in DocumentFileReader.ReadAsync(input, format))
            {
                if (entry.Error is { } error)
                {
                    await tally.SkipAsync($"{entry.Place}: {error}", fatal: entry.Fatal);
                    continue;
                }
                if (template.Render(entry.Document, out var why) is not { } key)
                {
                    await tally.SkipAsync($"{entry.Place}: no key: {why}");
                    continue;
                }
                await window.WaitAsync();
                upserts.Add(UpsertAsync(collection, key, entry, window, progress, tally));
                if (upserts.Count >= 4 * concurrency)
                    upserts.RemoveAll(task => task.IsCompleted);
            }
            await Task.WhenAll(upserts);
            context.WriteLine($"imported {progress.Describe()} from {(path == "-" ? "standard input" : path)}; " +
                              $"{tally.Skipped:N0} skipped, {tally.Failed:N0} failed");
        }
        return tally.Skipped + tally.Failed == 0 ? ExitCodes.Success : ExitCodes.OperationFailed;
    }

    private static async Task UpsertAsync(Collection collection, string key, DocumentEntry entry, SemaphoreSlim window,
        TransferProgress progress, Tally tally)
    {
        try
        {
            for (var attempt = 1; ; attempt++)
            {
                try
                {
                    await collection.UpsertAsync(key, entry.Document);
                    progress.Add(entry.Document.GetRawText().Length);
                    return;
                }
                catch (Exception e) when (e is TemporaryFailureException or Tern.Client.Exceptions.TimeoutException && attempt < MaxAttempts)
                {
                    await Task.Delay(TimeSpan.FromMilliseconds(100 << attempt));
                }
            }
        }
        catch (Exception e)
        {
            await tally.FailAsync($"{entry.Place}: key '{key}': {e.Message}");
        }
        finally
        {
            window.Release();
        }
    }

    /// <summary>What did not make it, counted; the first few reported on standard error.</summary>
    private sealed class Tally(TextWriter error)
    {
        private readonly SemaphoreSlim _writing = new(1);
        private long _skipped;
        private long _failed;

        public long Skipped => Interlocked.Read(ref _skipped);

        public long Failed => Interlocked.Read(ref _failed);

        public Task SkipAsync(string why, bool fatal = false) =>
            ReportAsync(fatal ? Interlocked.Increment(ref _failed) : Interlocked.Increment(ref _skipped), why, fatal ? "failed" : "skipped");

        public Task FailAsync(string why) => ReportAsync(Interlocked.Increment(ref _failed), why, "failed");

        private async Task ReportAsync(long count, string why, string what)
        {
            if (count > ReportLimit)
                return;
            await _writing.WaitAsync();
            try
            {
                await error.WriteLineAsync($"import: {what} {why}" + (count == ReportLimit ? $" (further {what} entries are only counted)" : ""));
            }
            finally
            {
                _writing.Release();
            }
        }
    }
}
