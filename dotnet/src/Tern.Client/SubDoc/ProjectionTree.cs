using System.Text.Json;

namespace Tern.Client.SubDoc;

/// <summary>
/// Assembles projected paths into one JSON object with the document's structure: <c>name</c> and
/// <c>address.city</c> become <c>{"name":..,"address":{"city":..}}</c>; indexes make arrays of the
/// projected elements, in the order they were asked for. A path inside a value already projected
/// whole adds nothing (the value has it); a whole value replaces what was projected inside it. A
/// path that contradicts another (an index where a field was placed) is left out.
/// </summary>
internal sealed class ProjectionTree
{
    private readonly Node _root = new();

    public void Add(IReadOnlyList<PathSegment> path, ReadOnlyMemory<byte> json)
    {
        if (path.Count == 0 || path[0].IsIndex)
            return; // the document is an object: nothing at its top is an array element
        var node = _root;
        foreach (var segment in path)
        {
            if (node.Value is not null)
                return;
            node = node.Child(segment);
            if (node is null)
                return;
        }
        node.Value = json;
        node.Children = null;
    }

    public void WriteTo(Utf8JsonWriter writer) => _root.Write(writer);

    private sealed class Node
    {
        public ReadOnlyMemory<byte>? Value;
        public List<(PathSegment Key, Node Child)>? Children;
        private bool _isArray;

        /// <summary>The child for <paramref name="key"/>, made if new; null when this node is the other kind (array, object).</summary>
        public Node? Child(PathSegment key)
        {
            if (Children is null)
            {
                Children = [];
                _isArray = key.IsIndex;
            }
            else if (_isArray != key.IsIndex)
            {
                return null;
            }
            foreach (var (existing, child) in Children)
            {
                if (existing == key)
                    return child;
            }
            var made = new Node();
            Children.Add((key, made));
            return made;
        }

        public void Write(Utf8JsonWriter writer)
        {
            if (Value is { } value)
            {
                writer.WriteRawValue(value.Span, skipInputValidation: true);
                return;
            }
            if (_isArray)
                writer.WriteStartArray();
            else
                writer.WriteStartObject();
            foreach (var (key, child) in Children ?? [])
            {
                if (!_isArray)
                    writer.WritePropertyName(key.Name!);
                child.Write(writer);
            }
            if (_isArray)
                writer.WriteEndArray();
            else
                writer.WriteEndObject();
        }
    }
}
