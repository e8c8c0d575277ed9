namespace Tern.Client.Exceptions;

/// <summary>
/// A sub-document spec failed, or the sub-document request as a whole. <see cref="Path"/> and
/// <see cref="Index"/> name the spec (the index in the caller's order, as the results are read);
/// both are null when the failure belongs to no single spec. A lookup's failing spec throws when
/// its result is read (<see cref="LookupInResult.ContentAs{T}(int)"/>); a mutation's makes the
/// whole MutateIn throw, and then nothing was changed. The names follow the official SDKs'.
/// </summary>
public class SubDocException(string problem, string key, string? path = null, int? index = null)
    : TernException(Compose(problem, key, path, index), key)
{
    /// <summary>The failing spec's path as the caller gave it; null when no single spec failed.</summary>
    public string? Path { get; } = path;

    /// <summary>The failing spec's index among the caller's specs (the official SDKs' SubDocumentErrorIndex).</summary>
    public int? Index { get; } = index;

    private static string Compose(string problem, string key, string? path, int? index) => (path, index) switch
    {
        (null, _) => $"{problem}: key '{Describe(key)}'",
        (_, null) => $"{problem}: path '{Describe(path)}' of key '{Describe(key)}'",
        _ => $"{problem}: path '{Describe(path)}' (spec {index}) of key '{Describe(key)}'",
    };
}

public sealed class PathNotFoundException(string key, string? path = null, int? index = null)
    : SubDocException("path not found", key, path, index);

public sealed class PathExistsException(string key, string? path = null, int? index = null)
    : SubDocException("path already exists", key, path, index);

/// <summary>The path and the document disagree on the structure: an index into an object, a field of an array or a number, a counter on a string...</summary>
public sealed class PathMismatchException(string key, string? path = null, int? index = null)
    : SubDocException("the path does not match the document's structure", key, path, index);

/// <summary>The path's syntax is invalid (e.g. an unclosed bracket or backtick, an empty component).</summary>
public sealed class PathInvalidException(string key, string? path = null, int? index = null)
    : SubDocException("invalid path", key, path, index);

/// <summary>The path is longer than 1024 bytes or has more than 32 components.</summary>
public sealed class PathTooBigException(string key, string? path = null, int? index = null)
    : SubDocException("path too long or too deep", key, path, index);

/// <summary>The document is nested too deeply (more than 32 levels) for the server to work in it.</summary>
public sealed class DocumentTooDeepException(string key, string? path = null, int? index = null)
    : SubDocException("the document is too deep", key, path, index);

public sealed class DocumentNotJsonException(string key, string? path = null, int? index = null)
    : SubDocException("the document is not JSON", key, path, index);

/// <summary>The value cannot go where the path points: not JSON, several values where one belongs, a non-primitive for ArrayAddUnique...</summary>
public sealed class ValueInvalidException(string key, string? path = null, int? index = null)
    : SubDocException("the value cannot be inserted at the path", key, path, index);

/// <summary>The value would make the document nested more than 32 levels deep.</summary>
public sealed class ValueTooDeepException(string key, string? path = null, int? index = null)
    : SubDocException("the value is too deep", key, path, index);

/// <summary>The number at the path, or the counter's result, does not fit a signed 64-bit integer.</summary>
public sealed class NumberTooBigException(string key, string? path = null, int? index = null)
    : SubDocException("the number is out of range for a counter", key, path, index);

/// <summary>
/// A counter's delta is invalid: INCREMENT/DECREMENT of a value that is not a decimal number (no
/// path), or a sub-document Increment/Decrement whose delta is zero or out of range (with its path).
/// </summary>
public sealed class DeltaInvalidException : SubDocException
{
    public DeltaInvalidException(string key)
        : base("counter operation on a non-numeric value", key)
    {
    }

    public DeltaInvalidException(string key, string? path, int? index)
        : base("invalid counter delta (zero, or out of range)", key, path, index)
    {
    }
}

/// <summary>
/// An extended-attribute spec the server refused: an unknown macro or virtual attribute, a virtual
/// attribute written to, flags or keys that do not go together. <see cref="TernException.Status"/> says which.
/// </summary>
public sealed class XattrException(string problem, string key, string? path = null, int? index = null)
    : SubDocException(problem, key, path, index);
