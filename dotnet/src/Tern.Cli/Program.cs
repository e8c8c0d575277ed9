namespace Tern.Cli;

/// <summary>
/// `tern COMMAND ...`: runs one command and exits with a code from <see cref="ExitCodes"/>.
/// Failures print one line on standard error saying what to do about them.
/// </summary>
public static class Program
{
    public static async Task<int> Main(string[] args) =>
        await RunAsync(args, Console.OpenStandardOutput(), Console.Error);

    public static async Task<int> RunAsync(IReadOnlyList<string> args, Stream output, TextWriter error)
    {
        var server = ServerAddress.Default;
        Target? target = null;
        try
        {
            var parsed = CliArguments.Parse(args);
            if (parsed.Has("help") || parsed.Command == "help")
            {
                await output.WriteAsync(System.Text.Encoding.UTF8.GetBytes(Usage.Text + "\n"));
                return ExitCodes.Success;
            }
            var command = CommandTable.Find(parsed.Command);
            server = ServerAddress.Parse(parsed.Server);
            target = Target.Resolve(parsed, server);
            if (target.Tls is { NoVerify: true })
                await error.WriteLineAsync(TlsOptions.NoVerifyWarning);
            await using var context = new CommandContext(parsed, target, output, error);
            return await command(context);
        }
        catch (Exception e)
        {
            var (message, exitCode) = ErrorReport.Describe(e, server, target);
            await error.WriteLineAsync($"tern: {message}");
            return exitCode;
        }
    }
}
