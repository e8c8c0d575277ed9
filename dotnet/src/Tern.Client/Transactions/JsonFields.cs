using System.Text.Json;

namespace Tern.Client.Transactions;

/// <summary>
/// Reads single fields out of the small JSON objects a transaction's document lookup returns
/// (<c>txn.id</c>, <c>txn.atr</c>, <c>$document</c>...) straight from the answer's bytes: no
/// <see cref="JsonDocument"/> per spec, only the strings the caller keeps. Anything that is not
/// what was asked for (a missing field, another type, JSON that is not an object) reads as null.
/// </summary>
internal static class JsonFields
{
    /// <summary>The string value of <paramref name="json"/> itself (a spec whose value is a JSON string).</summary>
    public static string? String(ReadOnlySpan<byte> json)
    {
        if (json.IsEmpty)
            return null;
        var reader = new Utf8JsonReader(json);
        return reader.Read() && reader.TokenType == JsonTokenType.String ? reader.GetString() : null;
    }

    /// <summary>The string field <paramref name="name"/> of the object <paramref name="json"/>.</summary>
    public static string? String(ReadOnlySpan<byte> json, ReadOnlySpan<byte> name)
    {
        var reader = new Utf8JsonReader(json);
        return Seek(ref reader, name) && reader.TokenType == JsonTokenType.String ? reader.GetString() : null;
    }

    /// <summary>The unsigned 32-bit field <paramref name="name"/> of the object <paramref name="json"/>.</summary>
    public static uint? UInt32(ReadOnlySpan<byte> json, ReadOnlySpan<byte> name)
    {
        var reader = new Utf8JsonReader(json);
        return Seek(ref reader, name) && reader.TokenType == JsonTokenType.Number && reader.TryGetUInt32(out var value) ? value : null;
    }

    /// <summary>Moves the reader onto the value of the top-level property <paramref name="name"/>.</summary>
    private static bool Seek(ref Utf8JsonReader reader, ReadOnlySpan<byte> name)
    {
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
                return false;
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                var match = reader.ValueTextEquals(name);
                if (!reader.Read())
                    return false;
                if (match)
                    return true;
                reader.Skip();
            }
            return false;
        }
        catch (JsonException)
        {
            return false;
        }
    }
}
