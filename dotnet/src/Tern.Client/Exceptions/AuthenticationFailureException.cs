namespace Tern.Client.Exceptions;

/// <summary>
/// Authentication with a node failed: wrong credentials, no mechanism in common, or a SASL
/// exchange the SDK could not follow (a malformed or forged server message).
/// </summary>
public sealed class AuthenticationFailureException(string message, Exception? inner = null)
    : TernException(message, null, inner);
