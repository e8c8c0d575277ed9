using System.Collections.Generic;
using System.Text.Json;

namespace Tern.Client.Generators;

/// <summary>
/// Turns a JSON text into the plain object model the generator reads: objects as
/// <see cref="Dictionary{TKey,TValue}"/> of string to value, arrays as <see cref="List{T}"/>,
/// strings, numbers as <see cref="double"/>, booleans, and null. Parsing is System.Text.Json's;
/// malformed text throws its <see cref="JsonException"/>.
/// </summary>
internal static class JsonTree
{
    public static object? Parse(string text)
    {
        using var document = JsonDocument.Parse(text);
        return Convert(document.RootElement);
    }

    private static object? Convert(JsonElement element)
    {
        switch (element.ValueKind)
        {
            case JsonValueKind.Object:
                var members = new Dictionary<string, object?>();
                foreach (var member in element.EnumerateObject())
                {
                    if (members.ContainsKey(member.Name))
                        throw new JsonException($"the name \"{member.Name}\" appears twice in one object");
                    members[member.Name] = Convert(member.Value);
                }
                return members;
            case JsonValueKind.Array:
                var items = new List<object?>();
                foreach (var item in element.EnumerateArray())
                    items.Add(Convert(item));
                return items;
            case JsonValueKind.String:
                return element.GetString();
            case JsonValueKind.Number:
                return element.GetDouble();
            case JsonValueKind.True:
                return true;
            case JsonValueKind.False:
                return false;
            default:
                return null;
        }
    }
}
