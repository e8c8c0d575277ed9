using System.Text.Json;

namespace Tern.Client.Management;

/// <summary>The bucket manager over GET/POST/DELETE /pools/default/buckets[/name] and .../controller/doFlush.</summary>
internal sealed class BucketManager(ManagementClient client) : IBucketManager
{
    private const string Buckets = "/pools/default/buckets";

    public async Task CreateBucketAsync(BucketSettings settings, CreateBucketOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var answer = await client.SendAsync(HttpMethod.Post, Buckets, BucketSettingsWire.CreateForm(settings), options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw answer.Status == System.Net.HttpStatusCode.NotFound
                ? ManagementErrors.Unexpected(answer)
                : ManagementErrors.ForBucket(answer, settings.Name);
    }

    public async Task UpdateBucketAsync(BucketSettings settings, UpdateBucketOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var answer = await client.SendAsync(HttpMethod.Post, PathOf(settings.Name), BucketSettingsWire.UpdateForm(settings), options)
            .ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForBucket(answer, settings.Name);
    }

    public async Task DropBucketAsync(string bucketName, DropBucketOptions? options = null)
    {
        var answer = await client.SendAsync(HttpMethod.Delete, PathOf(bucketName), null, options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForBucket(answer, bucketName);
    }

    public async Task<BucketSettings> GetBucketAsync(string bucketName, GetBucketOptions? options = null)
    {
        var answer = await client.SendAsync(HttpMethod.Get, PathOf(bucketName), null, options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForBucket(answer, bucketName);
        return ManagementErrors.Read(answer, BucketSettingsWire.Parse);
    }

    public async Task<Dictionary<string, BucketSettings>> GetAllBucketsAsync(GetAllBucketsOptions? options = null)
    {
        var answer = await client.SendAsync(HttpMethod.Get, Buckets, null, options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.Unexpected(answer);
        return ManagementErrors.Read(answer, root =>
        {
            if (root.ValueKind != JsonValueKind.Array)
                throw new FormatException("the bucket list is not a JSON array");
            return root.EnumerateArray().Select(BucketSettingsWire.Parse).ToDictionary(b => b.Name, StringComparer.Ordinal);
        });
    }

    public async Task FlushBucketAsync(string bucketName, FlushBucketOptions? options = null)
    {
        var answer = await client.SendAsync(HttpMethod.Post, PathOf(bucketName) + "/controller/doFlush", [], options).ConfigureAwait(false);
        if (!answer.IsSuccess)
            throw ManagementErrors.ForBucket(answer, bucketName);
    }

    private static string PathOf(string bucketName)
    {
        ArgumentException.ThrowIfNullOrEmpty(bucketName);
        return $"{Buckets}/{Uri.EscapeDataString(bucketName)}";
    }
}
