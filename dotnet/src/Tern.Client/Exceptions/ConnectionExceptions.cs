namespace Tern.Client.Exceptions;

/// <summary>
/// The connection carrying the operation failed (closed by the peer, reset, or unreachable).
/// A mutation that was already sent may or may not have been applied.
/// </summary>
public sealed class ConnectionFailedException(string message, string? key = null, Exception? inner = null)
    : TernException(message, key, inner);

/// <summary>The node is unreachable and its reconnect backoff has not expired yet.</summary>
public sealed class NodeUnavailableException(string message, string? key = null, Exception? inner = null)
    : TernException(message, key, inner);
