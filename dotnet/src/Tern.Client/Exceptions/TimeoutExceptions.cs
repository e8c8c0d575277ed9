namespace Tern.Client.Exceptions;

/// <summary>The operation did not complete within its timeout. See the two subclasses.</summary>
public abstract class TimeoutException(string message, string? key) : TernException(message, key);

/// <summary>Timed out after a mutation may have reached the server: it may or may not have been applied.</summary>
public sealed class AmbiguousTimeoutException(string message, string? key) : TimeoutException(message, key);

/// <summary>Timed out with no effect on the server: a read, or a request that was never sent.</summary>
public sealed class UnambiguousTimeoutException(string message, string? key) : TimeoutException(message, key);
