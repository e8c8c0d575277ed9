namespace Tern.Client.Exceptions;

public sealed class DocumentNotFoundException(string key)
    : TernException($"document not found: key '{Describe(key)}'", key);

/// <summary>
/// A replica read found no copy of the document it could return: every copy was missing or failed.
/// <see cref="Exception.InnerException"/> holds each copy's error.
/// </summary>
public sealed class DocumentUnretrievableException(string key, IReadOnlyList<Exception> errors)
    : TernException($"no copy of key '{Describe(key)}' could be read ({errors.Count} tried: " +
                    $"{string.Join("; ", errors.Select(e => e.Message))})", key, new AggregateException(errors));

public sealed class DocumentExistsException(string key)
    : TernException($"document already exists: key '{Describe(key)}'", key);

public sealed class CasMismatchException(string key)
    : TernException($"CAS mismatch: key '{Describe(key)}' was changed since the CAS was read", key);

public sealed class DocumentLockedException(string key)
    : TernException($"document is locked: key '{Describe(key)}'", key);

/// <summary>UNLOCK of a document that is not locked, or with the wrong CAS.</summary>
public sealed class DocumentNotLockedException(string key)
    : TernException($"document is not locked (or the CAS does not hold the lock): key '{Describe(key)}'", key);

public sealed class ValueTooLargeException(string key)
    : TernException($"value too large for key '{Describe(key)}'", key);

/// <summary>The server is temporarily unable to serve the request (out of memory, busy); retrying later may succeed.</summary>
public sealed class TemporaryFailureException(string key, ushort status)
    : TernException($"temporary failure (status 0x{status:x2}) for key '{Describe(key)}'", key);

/// <summary>The server does not support the command (e.g. GET_LOCKED on plain memcached).</summary>
public sealed class FeatureNotAvailableException(string message, string? key = null) : TernException(message, key);
