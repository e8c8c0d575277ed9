namespace Tern.Client.Protocol;

/// <summary>The error map's spelling of each <see cref="ErrorAttributes"/> flag ("retry-now", "item-only", ...).</summary>
internal static class ErrorAttributeNames
{
    /// <summary>
    /// The flag named <paramref name="name"/>, or <see cref="ErrorAttributes.None"/> for a name this
    /// SDK does not know: newer servers add attributes, and an unknown one must not fail the map.
    /// </summary>
    public static ErrorAttributes Parse(string? name) => name switch
    {
        "success" => ErrorAttributes.Success,
        "item-only" => ErrorAttributes.ItemOnly,
        "invalid-input" => ErrorAttributes.InvalidInput,
        "fetch-config" => ErrorAttributes.FetchConfig,
        "conn-state-invalidated" => ErrorAttributes.ConnStateInvalidated,
        "auth" => ErrorAttributes.Auth,
        "special-handling" => ErrorAttributes.SpecialHandling,
        "support" => ErrorAttributes.Support,
        "temp" => ErrorAttributes.Temp,
        "internal" => ErrorAttributes.Internal,
        "retry-now" => ErrorAttributes.RetryNow,
        "retry-later" => ErrorAttributes.RetryLater,
        "subdoc" => ErrorAttributes.Subdoc,
        "dcp" => ErrorAttributes.Dcp,
        "auto-retry" => ErrorAttributes.AutoRetry,
        "item-locked" => ErrorAttributes.ItemLocked,
        "item-deleted" => ErrorAttributes.ItemDeleted,
        "rate-limit" => ErrorAttributes.RateLimit,
        _ => ErrorAttributes.None,
    };
}
