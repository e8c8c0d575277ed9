namespace Tern.Client.Management;

/// <summary>A scope and its collections, as GetAllScopesAsync reads them.</summary>
public sealed class ScopeSpec(string name)
{
    public string Name { get; } = name;

    public IReadOnlyList<CollectionSpec> Collections { get; init; } = [];
}

/// <summary>A collection of a scope.</summary>
public sealed class CollectionSpec(string scopeName, string name)
{
    public string ScopeName { get; } = scopeName;

    public string Name { get; } = name;

    /// <summary>
    /// The longest expiry of a new document: null or zero, the bucket's; <see cref="CreateCollectionSettings.NoExpiry"/>,
    /// none at all.
    /// </summary>
    public TimeSpan? MaxExpiry { get; init; }

    /// <summary>Whether the collection keeps a change history (a server setting ternd does not have).</summary>
    public bool? History { get; init; }
}

/// <summary>Optional settings of a new collection.</summary>
public sealed class CreateCollectionSettings(TimeSpan? maxExpiry = null, bool? history = null)
{
    /// <summary>Documents of the collection never expire, whatever the bucket's maximum.</summary>
    public static readonly TimeSpan NoExpiry = TimeSpan.FromSeconds(-1);

    public static CreateCollectionSettings Default => new();

    /// <summary>Unset or zero: the bucket's maximum expiry; <see cref="NoExpiry"/>: none; else whole seconds.</summary>
    public TimeSpan? MaxExpiry { get; set; } = maxExpiry;

    public bool? History { get; set; } = history;
}
