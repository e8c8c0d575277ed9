namespace Tern.Cli.Commands;

/// <summary>Rows of text under a header, each column as wide as its widest cell, two spaces apart.</summary>
internal static class Table
{
    public static void Write(CommandContext context, string[] header, IEnumerable<string[]> rows)
    {
        var all = rows.Prepend(header).ToList();
        var widths = header.Select((_, column) => all.Max(row => row[column].Length)).ToArray();
        foreach (var row in all)
            context.WriteLine(string.Join("  ", row.Select((cell, column) => column == row.Length - 1 ? cell : cell.PadRight(widths[column]))));
    }
}
