using System.Collections.Frozen;
using System.Globalization;
using System.Text.Json;

namespace Tern.Client.Protocol;

/// <summary>
/// A server's error map (GET_ERROR_MAP, version 2): for each status, its name, description and
/// attributes. <see cref="Default"/> is built from testdata/mcbp/statuses.json (embedded in the
/// assembly), the same table ternd serves, for servers that have no error map (plain memcached).
/// Immutable and thread-safe.
/// </summary>
public sealed class ErrorMap
{
    private const string DefaultResource = "Tern.Client.statuses.json";

    private static readonly Lazy<ErrorMap> LazyDefault = new(LoadDefault);

    private readonly FrozenDictionary<ushort, Entry> _entries;

    private ErrorMap(int version, int revision, Dictionary<ushort, Entry> entries)
    {
        Version = version;
        Revision = revision;
        _entries = entries.ToFrozenDictionary();
    }

    /// <summary>The built-in map, from the shared statuses table.</summary>
    public static ErrorMap Default => LazyDefault.Value;

    /// <summary>The map's format version (2 for the maps this SDK reads).</summary>
    public int Version { get; }

    /// <summary>The map's revision: of two maps with the same version, the higher revision is newer.</summary>
    public int Revision { get; }

    /// <summary>Parses a GET_ERROR_MAP answer; throws <see cref="FormatException"/> naming what is wrong.</summary>
    public static ErrorMap Parse(ReadOnlySpan<byte> json)
    {
        using var document = ParseDocument(json, "error map");
        var root = document.RootElement;
        RequireObject(root, "the error map");
        var version = RequiredInt(root, "version", "the error map");
        var revision = RequiredInt(root, "revision", "the error map");
        if (!root.TryGetProperty("errors", out var errors))
            throw new FormatException("the error map has no \"errors\" object");
        RequireObject(errors, "\"errors\"");

        var entries = new Dictionary<ushort, Entry>();
        foreach (var property in errors.EnumerateObject())
        {
            if (!ushort.TryParse(property.Name, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var status))
                throw new FormatException($"error map key \"{property.Name}\" is not a u16 status in hex");
            entries[status] = ReadEntry(property.Value, $"error map entry \"{property.Name}\"");
        }
        return new ErrorMap(version, revision, entries);
    }

    /// <summary>The attributes of <paramref name="status"/>; <see cref="ErrorAttributes.None"/> when the map lacks it.</summary>
    public ErrorAttributes AttributesOf(ushort status) =>
        _entries.TryGetValue(status, out var entry) ? entry.Attributes : ErrorAttributes.None;

    /// <summary>The map's name of <paramref name="status"/> (e.g. "KEY_ENOENT"), or null.</summary>
    public string? NameOf(ushort status) => _entries.TryGetValue(status, out var entry) ? entry.Name : null;

    /// <summary>
    /// Builds the map from the statuses table, whose rows carry the code as "0x.." and the map's
    /// entry under "error_map"; the table's own "error_map" object gives version and revision.
    /// </summary>
    private static ErrorMap LoadDefault()
    {
        using var stream = typeof(ErrorMap).Assembly.GetManifestResourceStream(DefaultResource)
            ?? throw new InvalidOperationException($"resource {DefaultResource} is missing from the assembly");
        var bytes = new byte[stream.Length];
        stream.ReadExactly(bytes);

        using var document = ParseDocument(bytes, "statuses table");
        var root = document.RootElement;
        RequireObject(root, "the statuses table");
        if (!root.TryGetProperty("error_map", out var header))
            throw new FormatException("the statuses table has no \"error_map\" object");
        RequireObject(header, "the statuses table's \"error_map\"");
        if (!root.TryGetProperty("statuses", out var rows) || rows.ValueKind != JsonValueKind.Array)
            throw new FormatException("the statuses table has no \"statuses\" array");

        var entries = new Dictionary<ushort, Entry>();
        foreach (var row in rows.EnumerateArray())
        {
            var code = row.TryGetProperty("code", out var c) && c.ValueKind == JsonValueKind.String ? c.GetString()! : "";
            if (!code.StartsWith("0x", StringComparison.Ordinal)
                || !ushort.TryParse(code.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var status))
                throw new FormatException($"statuses table code \"{code}\" is not a u16 in 0x hex");
            if (!row.TryGetProperty("error_map", out var entry))
                throw new FormatException($"statuses table row {code} has no \"error_map\" entry");
            entries[status] = ReadEntry(entry, $"statuses table row {code}");
        }
        return new ErrorMap(
            RequiredInt(header, "version", "the statuses table's \"error_map\""),
            RequiredInt(header, "revision", "the statuses table's \"error_map\""),
            entries);
    }

    private static JsonDocument ParseDocument(ReadOnlySpan<byte> json, string what)
    {
        try
        {
            // JsonDocument.Parse takes memory, not a span: the copy is one per map, off the hot path.
            return JsonDocument.Parse(json.ToArray());
        }
        catch (JsonException e)
        {
            throw new FormatException($"the {what} is not valid JSON: {e.Message}", e);
        }
    }

    private static Entry ReadEntry(JsonElement entry, string where)
    {
        RequireObject(entry, where);
        string? name = null;
        if (entry.TryGetProperty("name", out var n))
        {
            if (n.ValueKind != JsonValueKind.String)
                throw new FormatException($"{where}: \"name\" is not a string");
            name = n.GetString();
        }
        var attributes = ErrorAttributes.None;
        if (entry.TryGetProperty("attrs", out var attrs))
        {
            if (attrs.ValueKind != JsonValueKind.Array)
                throw new FormatException($"{where}: \"attrs\" is not an array");
            foreach (var attr in attrs.EnumerateArray())
            {
                if (attr.ValueKind != JsonValueKind.String)
                    throw new FormatException($"{where}: an attribute is not a string");
                attributes |= ErrorAttributeNames.Parse(attr.GetString());
            }
        }
        return new Entry(name, attributes);
    }

    private static int RequiredInt(JsonElement obj, string property, string where)
    {
        if (!obj.TryGetProperty(property, out var value))
            throw new FormatException($"{where} has no \"{property}\"");
        if (value.ValueKind != JsonValueKind.Number || !value.TryGetInt32(out var number))
            throw new FormatException($"{where}: \"{property}\" is not an integer");
        return number;
    }

    private static void RequireObject(JsonElement element, string what)
    {
        if (element.ValueKind != JsonValueKind.Object)
            throw new FormatException($"{what} is not a JSON object");
    }

    private readonly record struct Entry(string? Name, ErrorAttributes Attributes);
}
