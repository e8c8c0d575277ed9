using System.Text.Json;

namespace Tern.Client.Management;

/// <summary>
/// Reads GET /pools/default/buckets/name/scopes:
/// {"uid":"hex","scopes":[{"name","uid","collections":[{"name","uid","maxTTL"}]}]}.
/// Throws <see cref="FormatException"/> naming what is wrong.
/// </summary>
internal static class ScopesJson
{
    public static List<ScopeSpec> Parse(JsonElement root)
    {
        if (root.ValueKind != JsonValueKind.Object || !root.TryGetProperty("scopes", out var scopes) || scopes.ValueKind != JsonValueKind.Array)
            throw new FormatException("the scopes answer has no \"scopes\" array");
        var result = new List<ScopeSpec>(scopes.GetArrayLength());
        foreach (var scope in scopes.EnumerateArray())
        {
            var scopeName = NameOf(scope, "a scope");
            if (!scope.TryGetProperty("collections", out var collections) || collections.ValueKind != JsonValueKind.Array)
                throw new FormatException($"scope '{scopeName}' has no \"collections\" array");
            var specs = new List<CollectionSpec>(collections.GetArrayLength());
            foreach (var collection in collections.EnumerateArray())
            {
                var name = NameOf(collection, $"a collection of scope '{scopeName}'");
                specs.Add(new CollectionSpec(scopeName, name)
                {
                    MaxExpiry = collection.TryGetProperty("maxTTL", out var ttl)
                        ? ttl.ValueKind == JsonValueKind.Number && ttl.TryGetInt64(out var seconds) ? TimeSpan.FromSeconds(seconds)
                        : throw new FormatException($"collection '{scopeName}.{name}' has a \"maxTTL\" that is not a whole number")
                        : null,
                    History = collection.TryGetProperty("history", out var history) && history.ValueKind is JsonValueKind.True or JsonValueKind.False
                        ? history.GetBoolean()
                        : null,
                });
            }
            result.Add(new ScopeSpec(scopeName) { Collections = specs });
        }
        return result;
    }

    private static string NameOf(JsonElement element, string what)
    {
        if (element.ValueKind != JsonValueKind.Object || !element.TryGetProperty("name", out var name) || name.ValueKind != JsonValueKind.String)
            throw new FormatException($"{what} has no \"name\" string");
        return name.GetString()!;
    }
}
