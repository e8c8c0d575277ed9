using System.Net.Sockets;
using Tern.Client.Exceptions;
using TimeoutException = Tern.Client.Exceptions.TimeoutException;

namespace Tern.Cli;

/// <summary>
/// Turns a failure into one line a person can act on (what failed, why, what to try) and the
/// exit code that classifies it. Never shows a stack trace: these are expected outcomes.
/// </summary>
public static class ErrorReport
{
    public static (string Message, int ExitCode) Describe(Exception error, ServerAddress server, Target? target = null)
    {
        // The SDK may raise these from inside a connection's bootstrap: look through wrappers.
        if (Find<AuthenticationFailureException>(error) is { } authentication)
            return (target?.Tls is { LogsInByCertificate: true }
                ? $"{authentication.Message} — the server did not log the client certificate (--cert) in; try -u and -p"
                : $"{authentication.Message} — check -u and -p (or $TERN_USER and $TERN_PASSWORD)", ExitCodes.AuthenticationFailed);
        if (Find<BucketNotFoundException>(error) is { } bucket)
            return ($"{server}: bucket '{bucket.BucketName}' does not exist, or user '{target?.User}' may not use it — " +
                (bucket.BucketName == target?.Bucket ? "check --bucket" : "check the name (tern bucket list)"),
                ExitCodes.NoSuchBucketOrCollection);
        if (Find<CollectionNotFoundException>(error) is { } collection)
            return ($"{server}: collection '{collection.ScopeName}.{collection.CollectionName}' does not exist in bucket " +
                $"'{target?.Bucket}' — check --collection (SCOPE.COLLECTION)", ExitCodes.NoSuchBucketOrCollection);
        if (Find<ScopeNotFoundException>(error) is { } scope)
            return ($"{server}: scope '{scope.ScopeName}' does not exist in bucket '{target?.Bucket}' — list them with `tern collection list`",
                ExitCodes.NoSuchBucketOrCollection);
        if (Find<CertificateValidationException>(error) is { } certificate)
            return ($"{certificate.Message} — give the CA that signed it with --cacert FILE", ExitCodes.Unreachable);
        if (Find<TlsHandshakeException>(error) is { } handshake)
            return (handshake.Message, ExitCodes.Unreachable);
        switch (error)
        {
            case ServiceNotAvailableException unavailable:
                return ($"{server}: {unavailable.Message} (tern looks for the management port in the cluster map of --bucket " +
                    $"'{target?.Bucket}')", ExitCodes.ServiceNotAvailable);
            case UsageException usage:
                return (usage.Message + " (see `tern --help`)", ExitCodes.Usage);
            case InvalidArgumentException invalid:
                return (invalid.Message, ExitCodes.Usage);
            case AmbiguousTimeoutException timeout:
                return ($"{server}: {timeout.Message} — the change may or may not have been applied", ExitCodes.Unreachable);
            case TimeoutException timeout:
                return ($"{server}: {timeout.Message} — is the server overloaded or stopped?", ExitCodes.Unreachable);
        }
        if (Find<SocketException>(error) is { } socket)
            return (CannotConnect(server, socket), ExitCodes.Unreachable);
        return error switch
        {
            // The node never took a connection (e.g. the connect timed out): say why, innermost first.
            NodeUnavailableException => ($"cannot connect to {server}: {Innermost(error).Message}", ExitCodes.Unreachable),
            ConnectionFailedException or IOException =>
                ($"lost the connection to {server}: {error.Message}", ExitCodes.Unreachable),
            TernException => (error.Message, ExitCodes.OperationFailed),
            OperationCanceledException => ("cancelled", ExitCodes.OperationFailed),
            _ => ($"unexpected error: {error.GetType().Name}: {error.Message}", ExitCodes.OperationFailed),
        };
    }

    private static string CannotConnect(ServerAddress server, SocketException socket) => socket.SocketErrorCode switch
    {
        SocketError.ConnectionRefused =>
            $"cannot connect to {server}: connection refused — is ternd running? (make run)",
        SocketError.HostNotFound or SocketError.NoData or SocketError.TryAgain =>
            $"cannot connect to {server}: unknown host '{server.Host}' — check --server",
        SocketError.TimedOut =>
            $"cannot connect to {server}: no answer (timed out) — check the address and any firewall",
        SocketError.HostUnreachable or SocketError.NetworkUnreachable =>
            $"cannot connect to {server}: host unreachable — check the address and the network",
        SocketError.ConnectionReset or SocketError.ConnectionAborted or SocketError.Shutdown =>
            $"lost the connection to {server}: closed by the server — check its log",
        _ => $"cannot connect to {server}: {socket.Message}",
    };

    private static Exception Innermost(Exception error)
    {
        while (error.InnerException is { } inner)
            error = inner;
        return error;
    }

    private static T? Find<T>(Exception? error) where T : Exception
    {
        for (; error is not null; error = error.InnerException)
        {
            if (error is T found)
                return found;
            if (error is AggregateException { InnerExceptions.Count: > 0 } aggregate)
                return Find<T>(aggregate.InnerExceptions[0]);
        }
        return null;
    }
}
