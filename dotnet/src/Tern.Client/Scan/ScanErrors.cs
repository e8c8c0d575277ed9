using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Scan;

/// <summary>
/// The server no longer knows a scan: it was cancelled for idling, or its vbucket moved to
/// another node. A range scan resumes after the last key it returned; a sampling scan cannot.
/// </summary>
internal sealed class ScanLostException(string message) : TernException(message);

/// <summary>The exceptions of a scan's failed requests, naming the vbucket and the collection (scan requests have no key).</summary>
internal static class ScanErrors
{
    public static TernException For(OperationBase operation, ResponseStatus status)
    {
        var keyspace = operation.Keyspace;
        var what = $"{operation.Opcode.Name()} of vbucket {operation.VBucket}" +
                   (keyspace is null ? "" : $" of collection '{keyspace.ScopeName}.{keyspace.CollectionName}' in bucket '{keyspace.BucketName}'");
        TernException error = status switch
        {
            ResponseStatus.KeyEnoent => new ScanLostException($"{what}: the server no longer knows the scan (it idled out, or the vbucket moved)"),
            ResponseStatus.RangeScanCancelled => new TernException($"{what}: the scan was cancelled on the server"),
            ResponseStatus.VbUuidNotEqual => new TernException(
                $"{what}: the vbucket's uuid differs from the one in ConsistentWith's token, so the vbucket's history changed " +
                "since that mutation (it was recreated or failed over) and the scan cannot be consistent with it"),
            ResponseStatus.UnknownCollection or ResponseStatus.UnknownScope when keyspace is not null =>
                new CollectionNotFoundException(keyspace.BucketName, keyspace.ScopeName, keyspace.CollectionName),
            ResponseStatus.Etmpfail or ResponseStatus.Ebusy => new TernException(
                $"{what} failed for now (status 0x{(ushort)status:x2}): the server has as many scans open as it allows, " +
                "or ConsistentWith's sequence number was not reached in time"),
            ResponseStatus.Eaccess => new TernException($"{what}: the user may not read the collection"),
            ResponseStatus.Einval => new InvalidArgumentException($"{what}: the server rejected the scan as invalid"),
            ResponseStatus.UnknownCommand or ResponseStatus.NotSupported =>
                new FeatureNotAvailableException($"{what}: the server does not support range scans (status 0x{(ushort)status:x2})"),
            _ => new TernException($"{what} failed with status 0x{(ushort)status:x2} ({status})"),
        };
        error.SetStatus((ushort)status);
        return error;
    }
}
