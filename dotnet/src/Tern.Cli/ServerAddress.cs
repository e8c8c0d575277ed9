namespace Tern.Cli;

/// <summary>A `host:port` the CLI connects to; the port defaults to 11210 when omitted.</summary>
public readonly record struct ServerAddress(string Host, int Port)
{
    public const int DefaultPort = 11210;

    public static ServerAddress Parse(string text)
    {
        var colon = text.LastIndexOf(':');
        if (colon < 0)
            return new ServerAddress(NonEmptyHost(text, text), DefaultPort);
        var portText = text[(colon + 1)..];
        if (!int.TryParse(portText, out var port) || port is < 1 or > 65535)
            throw new UsageException($"--server '{text}': port must be a number from 1 to 65535");
        return new ServerAddress(NonEmptyHost(text[..colon].Trim('[', ']'), text), port);
    }

    public override string ToString() => Host.Contains(':') ? $"[{Host}]:{Port}" : $"{Host}:{Port}";

    private static string NonEmptyHost(string host, string text) =>
        host.Length > 0 ? host : throw new UsageException($"--server '{text}': expected host:port");
}
