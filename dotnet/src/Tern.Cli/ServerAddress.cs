using Tern.Client;

namespace Tern.Cli;

/// <summary>A `host:port` the CLI connects to; the port defaults to ternd's when omitted.</summary>
public readonly record struct ServerAddress(string Host, int Port)
{
    /// <summary>Where the CLI connects unless told otherwise: a local ternd on its default port.</summary>
    public static readonly ServerAddress Default = new("127.0.0.1", ConnectionString.DefaultTernPort);

    public static ServerAddress Parse(string text)
    {
        var colon = text.LastIndexOf(':');
        if (colon < 0)
            return new ServerAddress(NonEmptyHost(text, text), ConnectionString.DefaultTernPort);
        var portText = text[(colon + 1)..];
        if (!int.TryParse(portText, out var port) || port is < 1 or > 65535)
            throw new UsageException($"--server '{text}': port must be a number from 1 to 65535");
        return new ServerAddress(NonEmptyHost(text[..colon].Trim('[', ']'), text), port);
    }

    public override string ToString() => Host.Contains(':') ? $"[{Host}]:{Port}" : $"{Host}:{Port}";

    private static string NonEmptyHost(string host, string text) =>
        host.Length > 0 ? host : throw new UsageException($"--server '{text}': expected host:port");
}
