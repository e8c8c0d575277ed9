namespace Tern.Client.Protocol;

/// <summary>
/// The attrs of an error-map entry (GET_ERROR_MAP), as flags. The retry step acts on RetryNow,
/// RetryLater, AutoRetry, ItemLocked and Temp; the others only describe the status.
/// </summary>
[Flags]
public enum ErrorAttributes
{
    None = 0,
    Success = 1 << 0,
    ItemOnly = 1 << 1,
    InvalidInput = 1 << 2,
    FetchConfig = 1 << 3,
    ConnStateInvalidated = 1 << 4,
    Auth = 1 << 5,
    SpecialHandling = 1 << 6,
    Support = 1 << 7,
    Temp = 1 << 8,
    Internal = 1 << 9,
    RetryNow = 1 << 10,
    RetryLater = 1 << 11,
    Subdoc = 1 << 12,
    Dcp = 1 << 13,
    AutoRetry = 1 << 14,
    ItemLocked = 1 << 15,
    ItemDeleted = 1 << 16,
    RateLimit = 1 << 17,
}
