namespace Tern.Cli;

/// <summary>Process exit codes, so scripts can tell "no such key" from "no server".</summary>
public static class ExitCodes
{
    public const int Success = 0;

    /// <summary>The server answered and refused: not found, exists, CAS mismatch, locked, not a number...</summary>
    public const int OperationFailed = 1;

    /// <summary>The command line is wrong, or names a key the protocol cannot carry.</summary>
    public const int Usage = 2;

    /// <summary>The server could not be reached, the connection broke, or the operation timed out.</summary>
    public const int Unreachable = 3;

    /// <summary>couchbase://: the server refused the user name or password.</summary>
    public const int AuthenticationFailed = 4;

    /// <summary>couchbase://: the bucket, scope or collection does not exist, or the user may not use it.</summary>
    public const int NoSuchBucketOrCollection = 5;

    /// <summary>couchbase://: the bucket and collection commands found no management port (ternd --mgmt-port none).</summary>
    public const int ServiceNotAvailable = 6;
}
