using Tern.Client.Protocol;

namespace Tern.Cli;

/// <summary>
/// A parsed command line: the command name, its positional arguments and its `--name value`
/// options (`-u USER` and `-p PASSWORD` are short for `--user` and `--password`). Options may
/// appear anywhere after the command; `--` ends option parsing.
/// Malformed input throws <see cref="UsageException"/> with a message naming the problem.
/// </summary>
public sealed class CliArguments
{
    private static readonly HashSet<string> Flags = ["help", "no-create", "flush", "no-verify", "scan"];

    private static readonly HashSet<string> ValueOptions =
        ["server", "user", "password", "bucket", "collection",
         "timeout", "expiry", "by", "initial", "ops", "concurrency", "value-size",
         "type", "ram-mb", "max-ttl", "eviction", "durability", "cacert", "cert", "key",
         "format", "output", "input", "include-key", "generate-key"];

    /// <summary>Single-letter spellings of value options: `-u USER`, `-p PASSWORD`.</summary>
    private static readonly Dictionary<string, string> ShortOptions = new(StringComparer.Ordinal)
    {
        ["-u"] = "user",
        ["-p"] = "password",
    };

    private readonly Dictionary<string, string> _options;

    private CliArguments(string command, List<string> positionals, Dictionary<string, string> options)
    {
        Command = command;
        Positionals = positionals;
        _options = options;
    }

    public string Command { get; }

    public IReadOnlyList<string> Positionals { get; }

    public string Server => Option("server") ?? Environment.GetEnvironmentVariable("TERN_SERVER") ?? ServerAddress.Default.ToString();

    /// <summary>`-u`/`--user`, else $TERN_USER; null when neither is given (or is empty).</summary>
    public string? User => Option("user") ?? NonEmptyVariable("TERN_USER");

    /// <summary>`-p`/`--password`, else $TERN_PASSWORD (which keeps the password out of `ps`).</summary>
    public string? Password => Option("password") ?? NonEmptyVariable("TERN_PASSWORD");

    public bool Has(string flag) => _options.ContainsKey(flag);

    public string? Option(string name) => _options.GetValueOrDefault(name);

    public static CliArguments Parse(IReadOnlyList<string> args)
    {
        string? command = null;
        var positionals = new List<string>();
        var options = new Dictionary<string, string>(StringComparer.Ordinal);
        var onlyPositionals = false;
        for (var i = 0; i < args.Count; i++)
        {
            var arg = args[i];
            if (!onlyPositionals && arg == "--")
            {
                onlyPositionals = true;
            }
            else if (!onlyPositionals && arg.StartsWith("--", StringComparison.Ordinal) && arg.Length > 2)
            {
                var (name, value) = SplitOption(arg[2..]);
                if (!Flags.Contains(name) && !ValueOptions.Contains(name))
                    throw new UsageException($"unknown option --{name}");
                if (value is null && !Flags.Contains(name))
                {
                    if (i + 1 >= args.Count)
                        throw new UsageException($"option --{name} needs a value");
                    value = args[++i];
                }
                options[name] = value ?? "";
            }
            else if (!onlyPositionals && arg is "-h")
            {
                options["help"] = "";
            }
            else if (!onlyPositionals && ShortOptions.TryGetValue(arg, out var longName))
            {
                if (i + 1 >= args.Count)
                    throw new UsageException($"option {arg} needs a value");
                options[longName] = args[++i];
            }
            else if (command is null)
            {
                command = arg;
            }
            else
            {
                positionals.Add(arg);
            }
        }
        return new CliArguments(command ?? "", positionals, options);
    }

    /// <summary>The positional argument at <paramref name="index"/>, or a usage error naming it.</summary>
    public string Required(int index, string what) =>
        index < Positionals.Count ? Positionals[index] : throw new UsageException($"{Command}: missing {what}");

    /// <summary>
    /// The document key at <paramref name="index"/>, checked as the SDK checks it (not empty, at most
    /// 250 UTF-8 bytes) before anything connects, so a bad key is a usage error even with no server.
    /// </summary>
    public string Key(int index)
    {
        var key = Required(index, "KEY");
        _ = KeyWriter.GetWireLength(key);
        return key;
    }

    /// <summary>Rejects positional arguments past the first <paramref name="count"/>.</summary>
    public void AtMost(int count)
    {
        if (Positionals.Count > count)
            throw new UsageException($"{Command}: unexpected argument '{Positionals[count]}'");
    }

    public ulong UnsignedOption(string name, ulong fallback) => NumberOption(name, fallback, ulong.TryParse);

    public uint UInt32Option(string name, uint fallback) => NumberOption(name, fallback, uint.TryParse);

    public int PositiveOption(string name, int fallback)
    {
        var value = NumberOption(name, fallback, int.TryParse);
        return value > 0 ? value : throw new UsageException($"--{name} must be positive, got {value}");
    }

    public TimeSpan SecondsOption(string name, double fallback)
    {
        var text = Option(name);
        if (text is null)
            return TimeSpan.FromSeconds(fallback);
        return double.TryParse(text, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out var seconds)
                && seconds > 0 && seconds < TimeSpan.MaxValue.TotalSeconds // beyond it TimeSpan overflows
            ? TimeSpan.FromSeconds(seconds)
            : throw new UsageException($"--{name} expects a positive number of seconds, got '{text}'");
    }

    private delegate bool TryParse<T>(string text, out T value);

    private T NumberOption<T>(string name, T fallback, TryParse<T> parse)
    {
        var text = Option(name);
        if (text is null)
            return fallback;
        return parse(text, out var value)
            ? value
            : throw new UsageException($"--{name} expects a non-negative whole number, got '{text}'");
    }

    private static string? NonEmptyVariable(string name) =>
        Environment.GetEnvironmentVariable(name) is { Length: > 0 } value ? value : null;

    private static (string Name, string? Value) SplitOption(string body)
    {
        var equals = body.IndexOf('=');
        return equals < 0 ? (body, null) : (body[..equals], body[(equals + 1)..]);
    }
}

/// <summary>The command line is wrong; the message says how. Exit code 2.</summary>
public sealed class UsageException(string message) : Exception(message);
