using System.Net;
using System.Text.Json;
using Tern.Client.Exceptions;

namespace Tern.Client.Management;

/// <summary>
/// Turns a refusal of the management port into the official SDK's typed exceptions, from the
/// status and Couchbase's texts ("... already exists", "... is not found", "Flush is disabled");
/// anything else becomes a <see cref="ManagementException"/> naming the request, status and message.
/// </summary>
internal static class ManagementErrors
{
    public static ManagementException Unexpected(ManagementAnswer answer) =>
        new($"{answer.Request} answered {(int)answer.Status} {answer.Status}: {answer.Message}", (int)answer.Status, answer.Message);

    /// <summary>A refusal of a request on one bucket (get, update, drop, flush).</summary>
    public static Exception ForBucket(ManagementAnswer answer, string bucket)
    {
        var message = answer.Message;
        return answer.Status switch
        {
            HttpStatusCode.NotFound => new BucketNotFoundException(bucket, $"{answer.Request} answered 404: {message}"),
            HttpStatusCode.BadRequest when message.Contains("flush is disabled", StringComparison.OrdinalIgnoreCase) =>
                new BucketNotFlushableException(bucket),
            HttpStatusCode.BadRequest when message.Contains("already exists", StringComparison.OrdinalIgnoreCase) =>
                new BucketExistsException(bucket),
            _ => Unexpected(answer),
        };
    }

    /// <summary>A refusal of a scope or collection request; <paramref name="collection"/> is null for scope requests.</summary>
    public static Exception ForCollections(ManagementAnswer answer, string bucket, string scope, string? collection)
    {
        var message = answer.Message;
        if (answer.Status is not (HttpStatusCode.BadRequest or HttpStatusCode.NotFound))
            return Unexpected(answer);
        // "Collection with name "c" in scope "s" ..." names a scope too: the collection is checked first.
        var aboutCollection = collection is not null && message.Contains("collection", StringComparison.OrdinalIgnoreCase);
        var aboutScope = message.Contains("scope", StringComparison.OrdinalIgnoreCase);
        if (message.Contains("already exists", StringComparison.OrdinalIgnoreCase))
        {
            if (aboutCollection)
                return new CollectionExistsException(bucket, scope, collection!);
            if (aboutScope)
                return new ScopeExistsException(bucket, scope);
        }
        if (message.Contains("not found", StringComparison.OrdinalIgnoreCase))
        {
            if (aboutCollection && message.Contains("collection with", StringComparison.OrdinalIgnoreCase))
                return new CollectionNotFoundException(bucket, scope, collection!);
            if (aboutScope)
                return new ScopeNotFoundException(bucket, scope);
        }
        return answer.Status == HttpStatusCode.NotFound
            ? new BucketNotFoundException(bucket, $"{answer.Request} answered 404: {message}")
            : Unexpected(answer);
    }

    /// <summary>Parses a success's JSON body; a body the SDK cannot read is a <see cref="ManagementException"/>.</summary>
    public static T Read<T>(ManagementAnswer answer, Func<JsonElement, T> parse)
    {
        try
        {
            using var document = JsonDocument.Parse(answer.Body);
            return parse(document.RootElement);
        }
        catch (Exception e) when (e is JsonException or FormatException)
        {
            throw new ManagementException($"{answer.Request} answered {(int)answer.Status} with a body the SDK cannot read: {e.Message}",
                (int)answer.Status, e.Message, e);
        }
    }
}
