namespace Tern.Client.SubDoc;

/// <summary>One step of a sub-document path: a field name, or (when <see cref="Name"/> is null) an array index.</summary>
internal readonly record struct PathSegment(string? Name, int Index = 0)
{
    public bool IsIndex => Name is null;
}

/// <summary>
/// Splits a sub-document path into its steps, for the projections GetAsync assembles: dotted
/// fields, <c>[n]</c> indexes (negative ones count from the end) and names in backticks, where a
/// doubled backtick stands for one. Only the projection needs this: every other path goes to the
/// server as the caller wrote it.
/// </summary>
internal static class ProjectionPath
{
    /// <summary>The path's steps, or null when its syntax is invalid.</summary>
    public static List<PathSegment>? Parse(string path)
    {
        var segments = new List<PathSegment>();
        var position = 0;
        while (true)
        {
            var name = ReadName(path, ref position);
            if (name is null)
                return null;
            segments.Add(new PathSegment(name));
            while (position < path.Length && path[position] == '[')
            {
                var close = path.IndexOf(']', position);
                if (close < 0 || !int.TryParse(path.AsSpan(position + 1, close - position - 1), out var index))
                    return null;
                segments.Add(new PathSegment(null, index));
                position = close + 1;
            }
            if (position == path.Length)
                return segments;
            if (path[position] != '.')
                return null;
            position++;
        }
    }

    private static string? ReadName(string path, ref int position)
    {
        if (position < path.Length && path[position] == '`')
        {
            var name = new System.Text.StringBuilder();
            for (position++; position < path.Length; position++)
            {
                if (path[position] != '`')
                {
                    name.Append(path[position]);
                    continue;
                }
                if (position + 1 < path.Length && path[position + 1] == '`')
                {
                    name.Append('`');
                    position++;
                    continue;
                }
                position++;
                return name.ToString();
            }
            return null; // no closing backtick
        }
        var end = path.IndexOfAny(['.', '['], position);
        end = end < 0 ? path.Length : end;
        if (end == position || path.AsSpan(position, end - position).Contains(']'))
            return null;
        var plain = path[position..end];
        position = end;
        return plain;
    }
}
