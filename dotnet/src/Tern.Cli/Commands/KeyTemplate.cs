using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Tern.Cli.Commands;

/// <summary>
/// A key expression of cbimport's --generate-key, which `tern import` reads the same way:
/// <list type="bullet">
/// <item>static text, kept in every key (<c>%%</c> and <c>##</c> for a literal % or #);</item>
/// <item><c>%field%</c>, the document's field; <c>%a.b%</c> a nested one; <c>%`a.b`%</c> a field
/// whose name has a dot. Strings are used as they are, numbers and booleans as written; a field
/// that is missing, null, an object or an array gives no key (the document is skipped);</item>
/// <item><c>#MONO_INCR#</c>, 1 for the first key, then 2...; <c>#MONO_INCR[N]#</c> starts at N;</item>
/// <item><c>#UUID#</c>, a random UUID.</item>
/// </list>
/// For example <c>key::%name%::#MONO_INCR#</c> gives <c>key::alice::1</c> for <c>{"name":"alice"}</c>.
/// Each generator counts on its own. Not thread-safe: one reader renders the keys.
/// </summary>
public sealed class KeyTemplate
{
    private abstract record Part;

    private sealed record Text(string Value) : Part;

    private sealed record Field(string[] Path, string Written) : Part;

    private sealed record Counter(long Start) : Part
    {
        public long Next;
    }

    private sealed record Uuid : Part;

    private readonly Part[] _parts;

    private KeyTemplate(Part[] parts) => _parts = parts;

    /// <summary>Parses <paramref name="expression"/>; <see cref="UsageException"/> naming the fault.</summary>
    public static KeyTemplate Parse(string expression)
    {
        var parts = new List<Part>();
        var text = new StringBuilder();
        var i = 0;
        while (i < expression.Length)
        {
            var c = expression[i];
            if (c is not ('%' or '#'))
            {
                text.Append(c);
                i++;
                continue;
            }
            if (i + 1 < expression.Length && expression[i + 1] == c)
            {
                text.Append(c); // %% or ##
                i += 2;
                continue;
            }
            var end = FindClosing(expression, i, c);
            if (text.Length > 0)
            {
                parts.Add(new Text(text.ToString()));
                text.Clear();
            }
            var inner = expression[(i + 1)..end];
            parts.Add(c == '%' ? ParseField(inner, expression) : ParseGenerator(inner, expression));
            i = end + 1;
        }
        if (text.Length > 0)
            parts.Add(new Text(text.ToString()));
        return parts.Count > 0 ? new KeyTemplate([.. parts]) : throw new UsageException("--generate-key: the key expression is empty");
    }

    /// <summary>
    /// The key of <paramref name="document"/>, or null with <paramref name="why"/> when a field it
    /// names is missing or cannot be part of a key.
    /// </summary>
    public string? Render(JsonElement document, out string? why)
    {
        var key = new StringBuilder();
        foreach (var part in _parts)
        {
            switch (part)
            {
                case Text text:
                    key.Append(text.Value);
                    break;
                case Field field:
                    if (!TryValue(document, field.Path, out var value))
                    {
                        why = $"field {field.Written} is missing";
                        return null;
                    }
                    switch (value.ValueKind)
                    {
                        case JsonValueKind.String:
                            key.Append(value.GetString());
                            break;
                        case JsonValueKind.Number or JsonValueKind.True or JsonValueKind.False:
                            key.Append(value.GetRawText());
                            break;
                        default:
                            why = $"field {field.Written} is {value.ValueKind.ToString().ToLowerInvariant()}, which cannot be part of a key";
                            return null;
                    }
                    break;
                case Counter counter:
                    key.Append((counter.Start + counter.Next++).ToString(CultureInfo.InvariantCulture));
                    break;
                case Uuid:
                    key.Append(Guid.NewGuid().ToString("D"));
                    break;
            }
        }
        why = null;
        return key.ToString();
    }

    private static int FindClosing(string expression, int open, char delimiter)
    {
        var inBackticks = false;
        for (var i = open + 1; i < expression.Length; i++)
        {
            if (expression[i] == '`')
                inBackticks = !inBackticks;
            else if (expression[i] == delimiter && !inBackticks)
                return i;
        }
        throw new UsageException($"--generate-key '{expression}': the {delimiter} at position {open + 1} is not closed (write {delimiter}{delimiter} for a literal {delimiter})");
    }

    private static Field ParseField(string inner, string expression)
    {
        var path = new List<string>();
        var segment = new StringBuilder();
        var inBackticks = false;
        foreach (var c in inner)
        {
            if (c == '`')
                inBackticks = !inBackticks;
            else if (c == '.' && !inBackticks)
                path.Add(EndSegment(segment, inner, expression));
            else
                segment.Append(c);
        }
        path.Add(EndSegment(segment, inner, expression));
        return new Field([.. path], $"'%{inner}%'");
    }

    private static string EndSegment(StringBuilder segment, string inner, string expression)
    {
        if (segment.Length == 0)
            throw new UsageException($"--generate-key '{expression}': field reference '%{inner}%' has an empty name");
        var name = segment.ToString();
        segment.Clear();
        return name;
    }

    private static Part ParseGenerator(string inner, string expression)
    {
        if (inner == "UUID")
            return new Uuid();
        if (inner == "MONO_INCR")
            return new Counter(1);
        if (inner.StartsWith("MONO_INCR[", StringComparison.Ordinal) && inner.EndsWith(']') &&
            long.TryParse(inner.AsSpan(10, inner.Length - 11), NumberStyles.None, CultureInfo.InvariantCulture, out var start))
            return new Counter(start);
        throw new UsageException($"--generate-key '{expression}': unknown generator '#{inner}#' (there are #MONO_INCR#, #MONO_INCR[N]# and #UUID#)");
    }

    private static bool TryValue(JsonElement document, string[] path, out JsonElement value)
    {
        value = document;
        foreach (var name in path)
        {
            if (value.ValueKind != JsonValueKind.Object || !value.TryGetProperty(name, out value))
                return false;
        }
        return true;
    }
}
