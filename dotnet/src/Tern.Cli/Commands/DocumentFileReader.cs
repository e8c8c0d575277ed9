using System.Runtime.CompilerServices;
using System.Text.Json;

namespace Tern.Cli.Commands;

/// <summary>
/// One entry of an import file: a document, or why the text at that place is not one. <see cref="Place"/>
/// names where it is ("line 12", "element 3"); <see cref="Fatal"/> says that the rest of the file
/// cannot be read (a list that is not valid JSON cannot be resumed after the fault).
/// </summary>
public readonly record struct DocumentEntry(string Place, JsonElement Document, string? Error, bool Fatal = false);

/// <summary>
/// Reads the documents of a file in a <see cref="DocumentFormat"/> one at a time, so memory stays
/// flat for any size: lines are parsed one by one, and a list is streamed element by element. A
/// line that is not JSON is an error entry, and reading goes on; blank lines are skipped.
/// </summary>
public static class DocumentFileReader
{
    public static IAsyncEnumerable<DocumentEntry> ReadAsync(Stream input, DocumentFormat format, CancellationToken cancellationToken = default) =>
        format == DocumentFormat.Lines ? ReadLinesAsync(input, cancellationToken) : ReadListAsync(input, cancellationToken);

    private static async IAsyncEnumerable<DocumentEntry> ReadLinesAsync(Stream input, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        using var reader = new StreamReader(input, leaveOpen: true);
        var number = 0L;
        while (await reader.ReadLineAsync(cancellationToken).ConfigureAwait(false) is { } line)
        {
            number++;
            if (string.IsNullOrWhiteSpace(line))
                continue;
            JsonElement document;
            string? error = null;
            try
            {
                document = JsonSerializer.Deserialize<JsonElement>(line);
            }
            catch (JsonException e)
            {
                document = default;
                error = $"not JSON ({e.Message.Split(" Path:")[0].Split(" LineNumber:")[0]})";
            }
            yield return new DocumentEntry($"line {number}", document, error);
        }
    }

    private static async IAsyncEnumerable<DocumentEntry> ReadListAsync(Stream input, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        await using var elements = JsonSerializer.DeserializeAsyncEnumerable<JsonElement>(input, cancellationToken: cancellationToken)
            .GetAsyncEnumerator(cancellationToken);
        var number = 0L;
        while (true)
        {
            string? fault = null;
            try
            {
                if (!await elements.MoveNextAsync().ConfigureAwait(false))
                    yield break;
            }
            catch (JsonException e)
            {
                fault = $"the list is not valid JSON at line {e.LineNumber + 1}, byte {e.BytePositionInLine + 1}; the rest of the file cannot be read";
            }
            number++;
            if (fault is not null)
            {
                yield return new DocumentEntry($"element {number}", default, fault, Fatal: true);
                yield break;
            }
            yield return new DocumentEntry($"element {number}", elements.Current, null);
        }
    }
}
