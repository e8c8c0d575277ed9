using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Operations;

namespace Tern.Client.IO;

/// <summary>Builds timeout errors that say what happened: how long, whether sent, and how busy the connection was.</summary>
internal static class Timeouts
{
    public static Exceptions.TimeoutException Expired(OperationBase operation, string endpoint, bool sent, int inFlight, int queued)
    {
        var message =
            TimedOut(operation) + "; " +
            (sent ? $"it was sent to {endpoint} and no response came" : $"it was not yet sent to {endpoint}") +
            $"; {inFlight} operations were in flight on the connection and {queued} queued for a slot" +
            (operation.Retries is { } retries ? $"; before that attempt, {retries.Describe()}" : "");
        return sent && operation.IsMutation
            ? new AmbiguousTimeoutException(message, operation.Key)
            : new UnambiguousTimeoutException(message, operation.Key);
    }

    public static UnambiguousTimeoutException NoConnection(OperationBase operation, string endpoint) =>
        NotSent(operation, $"no connection to {endpoint} was ready in time (connecting or bootstrapping)");

    /// <summary>No node to send to before the deadline: no cluster map yet, or the key's vbucket had no active node.</summary>
    public static UnambiguousTimeoutException NoRoute(OperationBase operation, string what, bool noMap) =>
        NotSent(operation, noMap ? $"no cluster map of {what} arrived in time (connecting or bootstrapping)"
                                 : $"vbucket {operation.VBucket} of {what} had no active node in the cluster map");

    /// <summary>
    /// The deadline came between retries: every attempt was refused by the server (or never sent),
    /// so nothing was applied.
    /// </summary>
    public static UnambiguousTimeoutException RetriesExhausted(OperationBase operation) =>
        new(TimedOut(operation) + $" after {operation.Retries?.Describe() ?? "0 retries"}; no attempt was applied", operation.Key);

    public static UnambiguousTimeoutException QueueFull(OperationBase operation, string endpoint, int maxInFlight, int inFlight, int queued) =>
        NotSent(operation, $"the in-flight queue to {endpoint} is full ({inFlight} of {maxInFlight} in flight, {queued} queued)");

    /// <summary>A timeout of an operation that never left: nothing can have been applied.</summary>
    public static UnambiguousTimeoutException NotSent(OperationBase operation, string why) =>
        new(TimedOut(operation) + " without being sent: " + why, operation.Key);

    // "get of key 'k' timed out after 2501 ms (timeout 2500 ms)": how every timeout message starts
    // ("range_scan_create of vbucket 12 ..." for requests addressed to a vbucket, not a key).
    private static string TimedOut(OperationBase operation) =>
        $"{operation.Opcode.Name()} of {(operation.PinnedVBucket >= 0 ? $"vbucket {operation.PinnedVBucket}" : $"key '{TernException.Describe(operation.Key)}'")} timed out after " +
        $"{operation.Elapsed.ElapsedMilliseconds} ms (timeout {operation.Timeout.TotalMilliseconds:0} ms)";
}
