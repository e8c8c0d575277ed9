namespace Tern.Cli.Commands;

/// <summary>
/// The JSON file formats of Couchbase's cbexport and cbimport, which `tern export` writes and
/// `tern import` reads: <see cref="Lines"/>, one JSON document a line; <see cref="List"/>, one
/// JSON array of documents.
/// </summary>
public enum DocumentFormat
{
    Lines,
    List,
}

public static class DocumentFormats
{
    /// <summary>`--format lines|list`, required, as cbexport and cbimport require it.</summary>
    public static DocumentFormat Parse(CliArguments args) => args.Option("format") switch
    {
        "lines" => DocumentFormat.Lines,
        "list" => DocumentFormat.List,
        null => throw new UsageException($"{args.Command}: --format lines|list is required"),
        var other => throw new UsageException($"{args.Command}: --format '{other}': expected lines (a document a line) or list (a JSON array)"),
    };
}
