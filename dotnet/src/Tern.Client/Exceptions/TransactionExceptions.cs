namespace Tern.Client.Exceptions;

/// <summary>
/// A transaction did not commit: it was rolled back (or never wrote anything), and none of its
/// changes show. <see cref="Exception.InnerException"/> is the cause: the application's own
/// exception thrown from the lambda, or the error that stopped the last attempt.
/// </summary>
public class TransactionFailedException(string message, string transactionId, Exception? inner = null)
    : TernException(message, null, inner)
{
    /// <summary>The transaction's id, as the ATR and the documents' txn XATTRs carry it.</summary>
    public string TransactionId { get; } = transactionId;
}

/// <summary>The transaction ran out of time before it committed; it was rolled back, or will be by cleanup.</summary>
public sealed class TransactionExpiredException(string message, string transactionId, Exception? inner = null)
    : TransactionFailedException(message, transactionId, inner);

/// <summary>
/// The transaction reached its commit point, but the write that records it is ambiguous (a timeout,
/// a durability write whose outcome is unknown) and could not be resolved before the transaction
/// expired: it committed or it did not, and cleanup finishes whichever it was. Never a rollback
/// the caller can count on.
/// </summary>
public sealed class TransactionCommitAmbiguousException(string message, string transactionId, Exception? inner = null)
    : TransactionFailedException(message, transactionId, inner);
