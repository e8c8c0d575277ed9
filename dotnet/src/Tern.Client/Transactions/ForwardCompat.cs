using System.Text.Json;

namespace Tern.Client.Transactions;

/// <summary>
/// The forward-compatibility requirements a newer client wrote (<c>fc</c> in a document's
/// <c>txn</c> XATTR or in an ATR entry): per stage (<c>WW_R</c>, <c>WW_RP</c>, <c>G</c>, <c>CL_E</c>...),
/// the protocol extensions or version a client must support to go on. A client that lacks one
/// either retries later (<c>"b":"r"</c>, after <c>ra</c> ms) or fails fast. Stages this client does
/// not know are ignored.
/// </summary>
internal sealed class ForwardCompat
{
    public static readonly ForwardCompat None = new(null);

    // The protocol extensions whose behaviour this client implements.
    private static readonly HashSet<string> Supported =
        ["TI", "MO", "BM", "BS", "RC", "UA", "CO", "SD", "TS", "PU", "BF3705", "BF3787", "BF3791", "BF3838"];

    private readonly JsonElement? _root;

    private ForwardCompat(JsonElement? root) => _root = root;

    public static ForwardCompat From(JsonElement? element) =>
        element is { ValueKind: JsonValueKind.Object } root ? new ForwardCompat(root.Clone()) : None;

    /// <summary>
    /// Null when this client may go on at <paramref name="stage"/>; otherwise what stops it, and
    /// whether retrying after a delay may help.
    /// </summary>
    public (string Reason, bool Retry, TimeSpan Delay)? Check(string stage)
    {
        if (_root is not { } root || !root.TryGetProperty(stage, out var requirements) || requirements.ValueKind != JsonValueKind.Array)
            return null;
        foreach (var requirement in requirements.EnumerateArray())
        {
            if (requirement.ValueKind != JsonValueKind.Object || Satisfied(requirement))
                continue;
            var retry = requirement.TryGetProperty("b", out var behaviour) && behaviour.ValueKind == JsonValueKind.String &&
                behaviour.GetString() == "r";
            var delay = requirement.TryGetProperty("ra", out var after) && after.TryGetInt32(out var ms) ? TimeSpan.FromMilliseconds(ms) : TimeSpan.Zero;
            return ($"forward compatibility at stage {stage}: {requirement.GetRawText()} is not supported by this client", retry, delay);
        }
        return null;
    }

    private static bool Satisfied(JsonElement requirement)
    {
        if (requirement.TryGetProperty("e", out var extension))
            return extension.ValueKind == JsonValueKind.String && Supported.Contains(extension.GetString()!);
        if (requirement.TryGetProperty("p", out var protocol) && protocol.ValueKind == JsonValueKind.String)
        {
            var parts = protocol.GetString()!.Split('.');
            return parts.Length == 2 && int.TryParse(parts[0], out var major) && int.TryParse(parts[1], out var minor) &&
                (major < 2 || (major == 2 && minor == 0));
        }
        return true;
    }
}
