namespace Tern.Client.Protocol;

/// <summary>Response status codes (header bytes 6-7 of a response).</summary>
public enum ResponseStatus : ushort
{
    Success = 0x00,
    KeyNotFound = 0x01,
    KeyExists = 0x02,
    ValueTooLarge = 0x03,
    InvalidArguments = 0x04,
    NotStored = 0x05,
    DeltaBadValue = 0x06,
    NotMyVBucket = 0x07,
    NoBucket = 0x08,
    Locked = 0x09,
    NotLocked = 0x0e,
    AuthStale = 0x1f,
    AuthError = 0x20,
    AuthContinue = 0x21,
    OutOfRange = 0x22,
    NoAccess = 0x24,
    NotInitialized = 0x25,
    UnknownFrameInfo = 0x80,
    UnknownCommand = 0x81,
    OutOfMemory = 0x82,
    NotSupported = 0x83,
    InternalError = 0x84,
    Busy = 0x85,
    TemporaryFailure = 0x86,
    UnknownCollection = 0x88,
    UnknownScope = 0x8c,
}
