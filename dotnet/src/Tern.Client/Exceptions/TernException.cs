namespace Tern.Client.Exceptions;

/// <summary>Base of every error the SDK raises. <see cref="Key"/> names the document when one is involved.</summary>
public class TernException : Exception
{
    public TernException(string message, string? key = null, Exception? inner = null)
        : base(message, inner) => Key = key;

    /// <summary>The document key the failed operation addressed, or null.</summary>
    public string? Key { get; }

    /// <summary>The server status code behind this error, if the server sent one.</summary>
    public ushort? Status { get; private set; }

    internal void SetStatus(ushort status) => Status = status;

    /// <summary>Shortens a key for messages; the full key stays in <see cref="Key"/>.</summary>
    internal static string Describe(string key) => key.Length <= 300 ? key : string.Concat(key.AsSpan(0, 300), "...");
}

/// <summary>An argument the SDK rejected before sending anything, e.g. a key that is too long.</summary>
public sealed class InvalidArgumentException(string message, string? key = null) : TernException(message, key);
