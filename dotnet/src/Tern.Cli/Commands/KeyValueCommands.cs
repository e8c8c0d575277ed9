using System.Text;
using Tern.Client;

namespace Tern.Cli.Commands;

/// <summary>The single-key commands: each is one SDK call and one line (or value) of output.</summary>
public static class KeyValueCommands
{
    /// <summary>get KEY: writes the value's bytes unchanged (plus a newline on a terminal).</summary>
    public static async Task<int> GetAsync(CommandContext context)
    {
        var key = context.Args.Key(0);
        context.Args.AtMost(1);
        var collection = await context.ConnectAsync();
        using var result = await collection.GetAsync(key);
        context.Output.Write(result.ContentAsSpan());
        if (!Console.IsOutputRedirected)
            context.WriteLine("");
        return ExitCodes.Success;
    }

    /// <summary>set KEY [VALUE] [--expiry SECONDS]: VALUE as UTF-8, or standard input when omitted.</summary>
    public static async Task<int> SetAsync(CommandContext context)
    {
        var key = context.Args.Key(0);
        context.Args.AtMost(2);
        var value = context.Args.Positionals.Count > 1
            ? Encoding.UTF8.GetBytes(context.Args.Positionals[1])
            : await ReadStandardInputAsync();
        var options = new UpsertOptions { Expiry = context.Args.Option("expiry") is null ? null : context.Args.SecondsOption("expiry", 0) };
        var collection = await context.ConnectAsync();
        var result = await collection.UpsertAsync(key, value, options);
        context.WriteLine($"stored '{key}' ({value.Length} bytes, cas {result.Cas})");
        return ExitCodes.Success;
    }

    /// <summary>rm KEY.</summary>
    public static async Task<int> RemoveAsync(CommandContext context)
    {
        var key = context.Args.Key(0);
        context.Args.AtMost(1);
        var collection = await context.ConnectAsync();
        await collection.RemoveAsync(key);
        context.WriteLine($"removed '{key}'");
        return ExitCodes.Success;
    }

    /// <summary>incr/decr KEY [--by N] [--initial N | --no-create]: prints the counter's new value.</summary>
    public static async Task<int> CountAsync(CommandContext context)
    {
        var key = context.Args.Key(0);
        context.Args.AtMost(1);
        var delta = context.Args.UnsignedOption("by", 1);
        var decrement = context.Args.Command == "decr";
        // A missing counter is created holding the initial value; by default that is what one
        // increment of a zero counter would give, so `incr` on a new key prints the delta.
        var options = new CounterOptions
        {
            Delta = delta,
            Initial = context.Args.Has("no-create") ? null : context.Args.UnsignedOption("initial", decrement ? 0 : delta),
        };
        var collection = await context.ConnectAsync();
        var result = decrement
            ? await collection.Binary.DecrementAsync(key, options)
            : await collection.Binary.IncrementAsync(key, options);
        context.WriteLine(result.Content.ToString(System.Globalization.CultureInfo.InvariantCulture));
        return ExitCodes.Success;
    }

    /// <summary>touch KEY SECONDS: sets the expiry (0 keeps the document until removed).</summary>
    public static async Task<int> TouchAsync(CommandContext context)
    {
        var key = context.Args.Key(0);
        var secondsText = context.Args.Required(1, "SECONDS");
        context.Args.AtMost(2);
        if (!uint.TryParse(secondsText, out var seconds))
            throw new UsageException($"touch: SECONDS must be a non-negative whole number, got '{secondsText}'");
        var collection = await context.ConnectAsync();
        await collection.TouchAsync(key, TimeSpan.FromSeconds(seconds));
        context.WriteLine(seconds == 0 ? $"'{key}' no longer expires" : $"'{key}' expires in {seconds} s");
        return ExitCodes.Success;
    }

    private static async Task<byte[]> ReadStandardInputAsync()
    {
        if (!Console.IsInputRedirected)
            throw new UsageException("set: missing VALUE (give it as an argument or pipe it on standard input)");
        using var input = Console.OpenStandardInput();
        using var buffer = new MemoryStream();
        await input.CopyToAsync(buffer);
        return buffer.ToArray();
    }
}
