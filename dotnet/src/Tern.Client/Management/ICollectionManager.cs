namespace Tern.Client.Management;

/// <summary>
/// A bucket's scopes and collections, over the management port (<see cref="Bucket.Collections"/>),
/// with the official .NET SDK's names. A collection created here is usable at once, by this
/// cluster object and by any other. Failures: <see cref="Exceptions.ScopeExistsException"/>,
/// <see cref="Exceptions.ScopeNotFoundException"/>, <see cref="Exceptions.CollectionExistsException"/>,
/// <see cref="Exceptions.CollectionNotFoundException"/>, <see cref="Exceptions.BucketNotFoundException"/>,
/// <see cref="Exceptions.ServiceNotAvailableException"/> and <see cref="Exceptions.ManagementException"/>.
/// </summary>
public interface ICollectionManager
{
    Task<IEnumerable<ScopeSpec>> GetAllScopesAsync(GetAllScopesOptions? options = null);

    Task CreateScopeAsync(string scopeName, CreateScopeOptions? options = null);

    /// <summary>Drops the scope and every collection in it.</summary>
    Task DropScopeAsync(string scopeName, DropScopeOptions? options = null);

    Task CreateCollectionAsync(string scopeName, string collectionName, CreateCollectionSettings settings,
        CreateCollectionOptions? options = null);

    Task DropCollectionAsync(string scopeName, string collectionName, DropCollectionOptions? options = null);
}
