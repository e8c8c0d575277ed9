using Tern.Client.Exceptions;

namespace Tern.Client.Transactions;

/// <summary>What kind of failure a KV error is to the transaction protocol; each step decides from it whether to retry, resolve or give up.</summary>
internal enum ErrorClass
{
    DocNotFound,
    DocAlreadyExists,
    CasMismatch,
    AtrFull,
    Transient,
    Ambiguous,
    PathNotFound,
    PathAlreadyExists,
    Expiry,
    WriteWriteConflict,
    Hard,
    Other,
}

internal static class ErrorClasses
{
    /// <summary>Classifies an exception a KV or sub-document call threw.</summary>
    public static ErrorClass Of(Exception error) => error switch
    {
        TransactionOperationFailedException failed => failed.Class,
        DocumentNotFoundException => ErrorClass.DocNotFound,
        DocumentExistsException => ErrorClass.DocAlreadyExists,
        CasMismatchException => ErrorClass.CasMismatch,
        ValueTooLargeException => ErrorClass.AtrFull,
        // A request that could not be sent (no connection, no node) changed nothing: try again.
        UnambiguousTimeoutException or TemporaryFailureException or DocumentLockedException or ConnectionFailedException
            or NodeUnavailableException => ErrorClass.Transient,
        AmbiguousTimeoutException or DurabilityAmbiguousException => ErrorClass.Ambiguous,
        PathNotFoundException => ErrorClass.PathNotFound,
        PathExistsException => ErrorClass.PathAlreadyExists,
        _ => ErrorClass.Other,
    };
}

/// <summary>
/// What a transaction raises when an attempt fails and is not retried. (Past the commit point
/// nothing is raised: an unstaging that fails leaves the attempt to cleanup, and the transaction
/// reports <see cref="TransactionResult.UnstagingComplete"/> false.)
/// </summary>
internal enum FinalError
{
    Failed,
    Expired,
    Ambiguous,
}

/// <summary>
/// An operation of an attempt failed: the attempt is spoiled (every later operation and the commit
/// fail too). The flags say what happens next: roll the attempt back or not, start a new attempt
/// or not, and, when not, which exception the transaction ends with.
/// </summary>
internal sealed class TransactionOperationFailedException(ErrorClass errorClass, string message, Exception? cause = null)
    : Exception(message, cause)
{
    public ErrorClass Class { get; } = errorClass;

    public bool Retry { get; private init; }

    public bool Rollback { get; private init; } = true;

    public FinalError Raise { get; private init; } = FinalError.Failed;

    public TransactionOperationFailedException WithRetry() => Copy(retry: true);

    public TransactionOperationFailedException NoRollback() => Copy(rollback: false);

    public TransactionOperationFailedException Expired() => Copy(raise: FinalError.Expired);

    public TransactionOperationFailedException Ambiguous() => Copy(raise: FinalError.Ambiguous);

    private TransactionOperationFailedException Copy(bool? retry = null, bool? rollback = null, FinalError? raise = null) =>
        new(Class, Message, InnerException)
        {
            Retry = retry ?? Retry,
            Rollback = rollback ?? Rollback,
            Raise = raise ?? Raise,
        };
}
