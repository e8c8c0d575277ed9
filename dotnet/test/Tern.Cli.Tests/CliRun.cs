using System.Text;

namespace Tern.Cli.Tests;

/// <summary>One in-process run of the CLI: what it printed and how it exited.</summary>
public sealed record CliRun(int ExitCode, string Output, string Error)
{
    public static async Task<CliRun> RunAsync(params string[] args)
    {
        using var output = new MemoryStream();
        using var error = new StringWriter();
        var exitCode = await Program.RunAsync(args, output, error);
        return new CliRun(exitCode, Encoding.UTF8.GetString(output.ToArray()).TrimEnd('\n'), error.ToString().TrimEnd('\n'));
    }
}
