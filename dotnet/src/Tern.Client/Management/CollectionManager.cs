using System.Globalization;
using Tern.Client.Couchbase;

namespace Tern.Client.Management;

/// <summary>
/// The collection manager over /pools/default/buckets/name/scopes[/scope[/collections[/name]]].
/// After a change it forgets the bucket's cached id of that collection, so this cluster object's
/// next use asks the server; other clients find out through UnknownCollection, which makes them
/// look the id up again and retry once.
/// </summary>
internal sealed class CollectionManager(ManagementClient client, string bucketName, BucketTopology? topology) : ICollectionManager
{
    private string Scopes => $"/pools/default/buckets/{Uri.EscapeDataString(bucketName)}/scopes";

    public async Task<IEnumerable<ScopeSpec>> GetAllScopesAsync(GetAllScopesOptions? options = null)
    {
        var answer = await client.SendAsync(HttpMethod.Get, Scopes, null, options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForCollections(answer, bucketName, "", null);
        return ManagementErrors.Read(answer, ScopesJson.Parse);
    }

    public async Task CreateScopeAsync(string scopeName, CreateScopeOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(scopeName);
        var answer = await client.SendAsync(HttpMethod.Post, Scopes, [new("name", scopeName)], options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForCollections(answer, bucketName, scopeName, null);
    }

    public async Task DropScopeAsync(string scopeName, DropScopeOptions? options = null)
    {
        var answer = await client.SendAsync(HttpMethod.Delete, ScopePath(scopeName), null, options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForCollections(answer, bucketName, scopeName, null);
        topology?.Collections.ForgetScope(scopeName);
    }

    public async Task CreateCollectionAsync(string scopeName, string collectionName, CreateCollectionSettings settings,
        CreateCollectionOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(collectionName);
        ArgumentNullException.ThrowIfNull(settings);
        var form = new List<KeyValuePair<string, string>> { new("name", collectionName) };
        if (settings.MaxExpiry is { } expiry)
            form.Add(new("maxTTL", MaxTtlOf(expiry)));
        if (settings.History is { } history)
            form.Add(new("history", history ? "true" : "false"));
        var answer = await client.SendAsync(HttpMethod.Post, ScopePath(scopeName) + "/collections", form, options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForCollections(answer, bucketName, scopeName, collectionName);
        topology?.Collections.Forget(scopeName, collectionName);
    }

    public async Task DropCollectionAsync(string scopeName, string collectionName, DropCollectionOptions? options = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(collectionName);
        var answer = await client.SendAsync(HttpMethod.Delete, $"{ScopePath(scopeName)}/collections/{Uri.EscapeDataString(collectionName)}",
            null, options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForCollections(answer, bucketName, scopeName, collectionName);
        topology?.Collections.Forget(scopeName, collectionName);
    }

    private string ScopePath(string scopeName)
    {
        ArgumentException.ThrowIfNullOrEmpty(scopeName);
        return $"{Scopes}/{Uri.EscapeDataString(scopeName)}";
    }

    // Whole seconds; NoExpiry (negative) is -1, which the server reads as "never expires".
    private static string MaxTtlOf(TimeSpan expiry)
    {
        if (expiry < TimeSpan.Zero)
            return expiry == CreateCollectionSettings.NoExpiry
                ? "-1"
                : throw new Exceptions.InvalidArgumentException(
                    $"MaxExpiry {expiry} is negative: use CreateCollectionSettings.NoExpiry for documents that never expire");
        if (expiry.Ticks % TimeSpan.TicksPerSecond != 0)
            throw new Exceptions.InvalidArgumentException($"MaxExpiry {expiry} is not a whole number of seconds");
        return ((long)expiry.TotalSeconds).ToString(CultureInfo.InvariantCulture);
    }
}
