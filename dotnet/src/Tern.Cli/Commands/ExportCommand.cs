using Tern.Client;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Cli.Commands;

/// <summary>
/// export --format lines|list --output FILE [--include-key FIELD] [--concurrency N]: writes every
/// JSON document of the collection to FILE (- for standard output) in cbexport's formats, read
/// with a range scan of the whole collection, so memory stays flat for any size. Documents that
/// are not JSON are left out and counted (cbexport json has no place for them either).
/// </summary>
public static class ExportCommand
{
    private const int SkippedReportLimit = 10;

    public static async Task<int> RunAsync(CommandContext context)
    {
        context.Args.AtMost(0);
        var format = DocumentFormats.Parse(context.Args);
        var path = context.Args.Option("output") ?? throw new UsageException("export: --output FILE is required (- for standard output)");
        var concurrency = context.Args.PositiveOption("concurrency", 8);
        if (concurrency > ScanOptions.MaxConcurrentVBucketScans)
            throw new UsageException($"export: --concurrency is at most {ScanOptions.MaxConcurrentVBucketScans} (vbuckets scanned at once), got {concurrency}");
        if (!context.Server.IsCouchbase)
            throw new UsageException($"export reads with range scans, which need a couchbase:// server; {context.Server.Scheme}:// has none");
        var collection = await context.ConnectAsync();
        var options = new ScanOptions
        {
            ConcurrentVBucketScans = concurrency,
            BatchItemLimit = 1_000,
            BatchByteLimit = 256 * 1024,
            Timeout = context.Args.Option("timeout") is null ? ScanOptions.DefaultTimeout : context.Timeout,
        };

        var file = path == "-" ? context.Output : new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 20, useAsync: true);
        long notJson = 0, wrapped = 0;
        try
        {
            var writer = new DocumentFileWriter(file, format, context.Args.Option("include-key"));
            await using var progress = new TransferProgress("export", TransferProgress.TerminalOf(context.Error));
            await foreach (var item in collection.ScanAsync(new RangeScan(), options))
            {
                if (!IsJson(item))
                {
                    if (notJson++ < SkippedReportLimit)
                        await context.Error.WriteLineAsync($"export: '{item.Id}' is not JSON: left out");
                    continue;
                }
                var (bytes, wasWrapped) = await writer.WriteAsync(item.Id, item.ContentAsMemory());
                if (wasWrapped && wrapped++ < SkippedReportLimit)
                    await context.Error.WriteLineAsync($"export: '{item.Id}' is not a JSON object: written as {{\"value\": ...}} to carry its key");
                progress.Add(bytes);
            }
            await writer.FinishAsync();
            var summary = $"exported {progress.Describe()} to {(path == "-" ? "standard output" : path)}" +
                          (notJson > 0 ? $"; {notJson:N0} documents were not JSON and were left out" : "") +
                          (wrapped > 0 ? $"; {wrapped:N0} were not JSON objects and were wrapped to carry their key" : "");
            // On standard output the documents are the output: the summary goes beside them, to standard error.
            if (path == "-")
                await context.Error.WriteLineAsync(summary);
            else
                context.WriteLine(summary);
        }
        finally
        {
            if (!ReferenceEquals(file, context.Output))
                await file.DisposeAsync();
        }
        return ExitCodes.Success;
    }

    /// <summary>JSON by its datatype, as the server flags JSON it stores; a document flagged JSON by its writer only is checked.</summary>
    private static bool IsJson(IScanResult item)
    {
        var document = (ScanResult)item;
        if ((document.Datatype & Datatype.Json) != 0)
            return true;
        if ((document.Flags & 0xff000000) != DocumentFlags.Json)
            return false;
        var reader = new System.Text.Json.Utf8JsonReader(document.ContentAsMemory().Span);
        try
        {
            return reader.Read() && reader.TrySkip() && !reader.Read();
        }
        catch (System.Text.Json.JsonException)
        {
            return false;
        }
    }
}
