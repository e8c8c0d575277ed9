namespace Tern.Cli.Tests;

/// <summary>
/// What the CLI says when the server answers with bytes that are not the protocol. The timeout is
/// generous so that on a busy machine the outcome is the protocol error, never a timeout.
/// </summary>
public sealed class ProtocolErrorTests
{
    [Fact]
    public async Task AProtocolErrorOnAReadDoesNotSpeakOfAChange()
    {
        await using var server = new MalformedAnswerServer();

        var run = await CliRun.RunAsync("get", "k", "--server", server.Address, "--timeout", "10");

        Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
        Assert.Contains("protocol error", run.Error);
        Assert.Contains("the request was sent", run.Error);
        Assert.DoesNotContain("applied", run.Error);
    }

    [Fact]
    public async Task AProtocolErrorOnAMutationSaysTheChangeMayOrMayNotHaveBeenApplied()
    {
        await using var server = new MalformedAnswerServer();

        var run = await CliRun.RunAsync("set", "k", "v", "--server", server.Address, "--timeout", "10");

        Assert.Equal(ExitCodes.Unreachable, run.ExitCode);
        Assert.Contains("protocol error", run.Error);
        Assert.Contains("the change may or may not have been applied", run.Error);
    }
}
