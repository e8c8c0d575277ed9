using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Tern.Client.Generators;

/// <summary>A JSON text that is not well-formed; <see cref="Offset"/> is where reading stopped.</summary>
internal sealed class JsonFormatException(string message, int offset) : Exception(message)
{
    public int Offset { get; } = offset;
}

/// <summary>
/// A small strict JSON reader (RFC 8259) for the table files. Objects become
/// <see cref="Dictionary{TKey,TValue}"/> of string to value (a repeated name is an error), arrays
/// <see cref="List{T}"/>, strings <see cref="string"/>, numbers <see cref="double"/>, true and false
/// <see cref="bool"/>, null <c>null</c>. The generator carries it instead of System.Text.Json, which
/// netstandard2.0 lacks: see <see cref="ProtocolTablesGenerator"/>.
/// </summary>
internal sealed class JsonReader
{
    private readonly string _text;
    private int _pos;

    private JsonReader(string text) => _text = text;

    public static object? Parse(string text)
    {
        var reader = new JsonReader(text);
        reader.SkipWhitespace();
        var value = reader.ReadValue(depth: 0);
        reader.SkipWhitespace();
        if (reader._pos != text.Length)
            throw reader.Error("text after the top-level value");
        return value;
    }

    private object? ReadValue(int depth)
    {
        if (depth > 64)
            throw Error("nested too deeply");
        if (_pos >= _text.Length)
            throw Error("unexpected end of text");
        switch (_text[_pos])
        {
            case '{': return ReadObject(depth);
            case '[': return ReadArray(depth);
            case '"': return ReadString();
            case 't': ReadLiteral("true"); return true;
            case 'f': ReadLiteral("false"); return false;
            case 'n': ReadLiteral("null"); return null;
            default:
                var c = _text[_pos];
                if (c == '-' || (c >= '0' && c <= '9'))
                    return ReadNumber();
                throw Error($"unexpected character '{c}'");
        }
    }

    private Dictionary<string, object?> ReadObject(int depth)
    {
        var members = new Dictionary<string, object?>(StringComparer.Ordinal);
        _pos++; // '{'
        SkipWhitespace();
        if (TryTake('}'))
            return members;
        while (true)
        {
            SkipWhitespace();
            if (_pos >= _text.Length || _text[_pos] != '"')
                throw Error("expected a member name");
            var nameAt = _pos;
            var name = ReadString();
            SkipWhitespace();
            Expect(':');
            SkipWhitespace();
            if (members.ContainsKey(name))
            {
                _pos = nameAt;
                throw Error($"member \"{name}\" appears twice");
            }
            members.Add(name, ReadValue(depth + 1));
            SkipWhitespace();
            if (TryTake('}'))
                return members;
            Expect(',');
        }
    }

    private List<object?> ReadArray(int depth)
    {
        var items = new List<object?>();
        _pos++; // '['
        SkipWhitespace();
        if (TryTake(']'))
            return items;
        while (true)
        {
            SkipWhitespace();
            items.Add(ReadValue(depth + 1));
            SkipWhitespace();
            if (TryTake(']'))
                return items;
            Expect(',');
        }
    }

    private string ReadString()
    {
        _pos++; // '"'
        var text = new StringBuilder();
        while (true)
        {
            if (_pos >= _text.Length)
                throw Error("unterminated string");
            var c = _text[_pos++];
            if (c == '"')
                return text.ToString();
            if (c < ' ')
                throw Error("control character in a string");
            if (c != '\\')
            {
                text.Append(c);
                continue;
            }
            if (_pos >= _text.Length)
                throw Error("unterminated escape");
            var escape = _text[_pos++];
            switch (escape)
            {
                case '"': text.Append('"'); break;
                case '\\': text.Append('\\'); break;
                case '/': text.Append('/'); break;
                case 'b': text.Append('\b'); break;
                case 'f': text.Append('\f'); break;
                case 'n': text.Append('\n'); break;
                case 'r': text.Append('\r'); break;
                case 't': text.Append('\t'); break;
                case 'u':
                    if (_pos + 4 > _text.Length ||
                        !ushort.TryParse(_text.Substring(_pos, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var unit))
                        throw Error("bad \\u escape");
                    text.Append((char)unit);
                    _pos += 4;
                    break;
                default:
                    _pos--;
                    throw Error($"bad escape '\\{escape}'");
            }
        }
    }

    private double ReadNumber()
    {
        var start = _pos;
        TryTake('-');
        if (TryTake('0'))
        {
            // no leading zeros
        }
        else if (!TakeDigits())
        {
            throw Error("bad number");
        }
        if (TryTake('.') && !TakeDigits())
            throw Error("bad number: no digits after '.'");
        if (TryTake('e') || TryTake('E'))
        {
            if (!TryTake('+'))
                TryTake('-');
            if (!TakeDigits())
                throw Error("bad number: no exponent digits");
        }
        return double.Parse(_text.Substring(start, _pos - start), NumberStyles.Float, CultureInfo.InvariantCulture);
    }

    private bool TakeDigits()
    {
        var start = _pos;
        while (_pos < _text.Length && _text[_pos] >= '0' && _text[_pos] <= '9')
            _pos++;
        return _pos > start;
    }

    private void ReadLiteral(string literal)
    {
        if (string.CompareOrdinal(_text, _pos, literal, 0, literal.Length) != 0)
            throw Error($"expected {literal}");
        _pos += literal.Length;
    }

    private void SkipWhitespace()
    {
        while (_pos < _text.Length && _text[_pos] is ' ' or '\t' or '\n' or '\r')
            _pos++;
    }

    private bool TryTake(char c)
    {
        if (_pos < _text.Length && _text[_pos] == c)
        {
            _pos++;
            return true;
        }
        return false;
    }

    private void Expect(char c)
    {
        if (!TryTake(c))
            throw Error(_pos < _text.Length ? $"expected '{c}', found '{_text[_pos]}'" : $"expected '{c}' before the end");
    }

    private JsonFormatException Error(string message) => new(message, _pos);
}
