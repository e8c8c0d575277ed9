using Tern.Cli.Commands;

namespace Tern.Cli;

/// <summary>Command names and the code that runs each.</summary>
public static class CommandTable
{
    private static readonly Dictionary<string, Func<CommandContext, Task<int>>> Commands = new(StringComparer.Ordinal)
    {
        ["get"] = KeyValueCommands.GetAsync,
        ["set"] = KeyValueCommands.SetAsync,
        ["rm"] = KeyValueCommands.RemoveAsync,
        ["incr"] = KeyValueCommands.CountAsync,
        ["decr"] = KeyValueCommands.CountAsync,
        ["touch"] = KeyValueCommands.TouchAsync,
        ["stats"] = StatsCommand.RunAsync,
        ["bench"] = BenchCommand.RunAsync,
        ["bucket"] = BucketCommands.RunAsync,
        ["collection"] = CollectionCommands.RunAsync,
        ["export"] = ExportCommand.RunAsync,
        ["import"] = ImportCommand.RunAsync,
    };

    public static Func<CommandContext, Task<int>> Find(string name) =>
        Commands.GetValueOrDefault(name) ?? throw new UsageException(
            name.Length == 0 ? "missing COMMAND" : $"unknown command '{name}'");
}
