using System.Net;
using System.Text.Json;

namespace Tern.Client.Management;

/// <summary>
/// One answer of the management port: its status and body, and what the server said in words.
/// Couchbase words its refusals in several shapes: {"errors":{"field":"text"}}, {"_":"text"},
/// {"message":"text","permissions":[...]}, a JSON string, or plain text.
/// </summary>
internal sealed record ManagementAnswer(HttpStatusCode Status, string Body, string Request)
{
    public bool IsSuccess => (int)Status is >= 200 and < 300;

    /// <summary>The server's message, on one line, for an exception.</summary>
    public string Message => MessageOf(Body);

    internal static string MessageOf(string body)
    {
        var text = body.Trim();
        if (text.Length == 0)
            return "(no message)";
        try
        {
            using var document = JsonDocument.Parse(text);
            var root = document.RootElement;
            switch (root.ValueKind)
            {
                case JsonValueKind.String:
                    return root.GetString()!;
                case JsonValueKind.Object:
                    var parts = new List<string>();
                    if (root.TryGetProperty("message", out var message) && message.ValueKind == JsonValueKind.String)
                        parts.Add(message.GetString()!);
                    if (root.TryGetProperty("permissions", out var permissions) && permissions.ValueKind == JsonValueKind.Array)
                        parts.Add(string.Join(", ", permissions.EnumerateArray().Select(p => p.ToString())));
                    var errors = root.TryGetProperty("errors", out var nested) && nested.ValueKind == JsonValueKind.Object ? nested : root;
                    foreach (var field in errors.EnumerateObject())
                    {
                        if (field.Name is "message" or "permissions" || field.Value.ValueKind != JsonValueKind.String)
                            continue;
                        parts.Add(field.Name == "_" ? field.Value.GetString()! : $"{field.Name}: {field.Value.GetString()}");
                    }
                    if (parts.Count > 0)
                        return string.Join("; ", parts);
                    break;
            }
        }
        catch (JsonException)
        {
        }
        return text.ReplaceLineEndings(" ");
    }
}
