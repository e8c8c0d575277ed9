using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Tern.Cli.Commands;

/// <summary>
/// Writes documents in a <see cref="DocumentFormat"/>, optionally with each one's key as a field,
/// as cbexport's --include-key does: the field comes first and replaces a field of that name the
/// document has; a document that is not a JSON object becomes <c>{"FIELD": key, "value": doc}</c>
/// (with the field named "value", just <c>{"value": doc}</c>), and the writer says so.
/// </summary>
public sealed class DocumentFileWriter(Stream output, DocumentFormat format, string? keyField)
{
    private const string WrappedValueField = "value";

    private static readonly byte[] ListStart = "[\n"u8.ToArray();
    private static readonly byte[] Separator = ",\n"u8.ToArray();
    private static readonly byte[] ListEnd = "\n]\n"u8.ToArray();
    private static readonly byte[] EmptyList = "[]\n"u8.ToArray();
    private static readonly byte[] NewLine = "\n"u8.ToArray();

    private readonly byte[]? _keyFieldName = keyField is null ? null : Encoding.UTF8.GetBytes(keyField);
    private long _written;

    /// <summary>Writes one JSON document; returns the bytes written, and whether it was wrapped in an object to carry its key.</summary>
    public async ValueTask<(int Bytes, bool Wrapped)> WriteAsync(string key, ReadOnlyMemory<byte> json)
    {
        var (content, wrapped) = _keyFieldName is null ? (json, false) : WithKey(key, json);
        var prefix = format == DocumentFormat.List ? (_written == 0 ? ListStart : Separator) : [];
        var suffix = format == DocumentFormat.Lines ? NewLine : [];
        await output.WriteAsync(prefix).ConfigureAwait(false);
        await output.WriteAsync(content).ConfigureAwait(false);
        await output.WriteAsync(suffix).ConfigureAwait(false);
        _written++;
        return (prefix.Length + content.Length + suffix.Length, wrapped);
    }

    /// <summary>Ends the file (a list's closing bracket) and flushes it.</summary>
    public async ValueTask FinishAsync()
    {
        if (format == DocumentFormat.List)
            await output.WriteAsync(_written == 0 ? EmptyList : ListEnd).ConfigureAwait(false);
        await output.FlushAsync().ConfigureAwait(false);
    }

    private (ReadOnlyMemory<byte> Content, bool Wrapped) WithKey(string key, ReadOnlyMemory<byte> json)
    {
        var buffer = new ArrayBufferWriter<byte>(json.Length + key.Length + _keyFieldName!.Length + 16);
        var reader = new Utf8JsonReader(json.Span);
        reader.Read();
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            using var writer = new Utf8JsonWriter(buffer);
            writer.WriteStartObject();
            if (keyField != WrappedValueField)
                writer.WriteString(_keyFieldName, key);
            writer.WritePropertyName(WrappedValueField);
            writer.WriteRawValue(json.Span, skipInputValidation: true);
            writer.WriteEndObject();
            writer.Flush();
            return (buffer.WrittenMemory, true);
        }
        var afterBrace = json[(int)reader.BytesConsumed..];
        reader.Read();
        if (reader.TokenType == JsonTokenType.EndObject)
            return (Encoding.UTF8.GetBytes($"{{{JsonSerializer.Serialize(keyField)}:{JsonSerializer.Serialize(key)}}}"), false);
        if (reader.TokenType == JsonTokenType.PropertyName && reader.ValueTextEquals(_keyFieldName) && reader.Read() &&
            reader.TokenType == JsonTokenType.String && reader.ValueTextEquals(key))
            return (json, false); // it already starts with the key (a file cbexport or tern wrote, imported back)
        if (HasTopLevelField(json.Span))
        {
            // Rare: rebuild the object with the key first, in place of the field it had.
            var old = JsonNode.Parse(json.Span)!.AsObject();
            old.Remove(keyField!);
            var rebuilt = new JsonObject { [keyField!] = key };
            foreach (var (name, value) in old.ToList())
            {
                old.Remove(name);
                rebuilt[name] = value;
            }
            return (JsonSerializer.SerializeToUtf8Bytes(rebuilt), false);
        }
        // Common: `{"FIELD":"key",` and the rest of the object as it is, without parsing it.
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteString(_keyFieldName, key);
            writer.Flush();
        }
        buffer.Write(","u8);
        buffer.Write(afterBrace.Span);
        return (buffer.WrittenMemory, false);
    }

    private bool HasTopLevelField(ReadOnlySpan<byte> json)
    {
        var reader = new Utf8JsonReader(json);
        reader.Read(); // the object's start
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (reader.ValueTextEquals(_keyFieldName))
                return true;
            reader.Read();
            reader.TrySkip();
        }
        return false;
    }
}
