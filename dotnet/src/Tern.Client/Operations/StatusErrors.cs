using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>The one mapping from a failed response status to the typed exception callers catch.</summary>
public static class StatusErrors
{
    public static Exception For(Opcode opcode, ResponseStatus status, string key, bool hadCas) =>
        For(opcode, status, key, hadCas, DurabilityLevel.None, null);

    /// <summary>The same, knowing the durability asked for and the keyspace addressed (couchbase://).</summary>
    internal static Exception For(Opcode opcode, ResponseStatus status, string key, bool hadCas,
        DurabilityLevel durability, IKeyspaceName? keyspace)
    {
        TernException error = status switch
        {
            ResponseStatus.KeyEnoent => new DocumentNotFoundException(key),
            // memcached answers NOT_STORED to APPEND/PREPEND of a missing document.
            ResponseStatus.NotStored when opcode is Opcode.Append or Opcode.Prepend => new DocumentNotFoundException(key),
            ResponseStatus.NotStored when opcode is Opcode.Add => new DocumentExistsException(key),
            ResponseStatus.KeyEexists when opcode is Opcode.Add && !hadCas => new DocumentExistsException(key),
            ResponseStatus.KeyEexists when opcode is Opcode.UnlockKey => new DocumentNotLockedException(key),
            ResponseStatus.KeyEexists => hadCas ? new CasMismatchException(key) : new DocumentLockedException(key),
            ResponseStatus.Locked => new DocumentLockedException(key),
            ResponseStatus.NotLocked => new DocumentNotLockedException(key),
            ResponseStatus.E2big => new ValueTooLargeException(key),
            ResponseStatus.DeltaBadval => new DeltaInvalidException(key),
            ResponseStatus.DurabilityImpossible => new DurabilityImpossibleException(key, durability),
            ResponseStatus.SyncWriteAmbiguous => new DurabilityAmbiguousException(key, durability),
            ResponseStatus.DurabilityInvalidLevel =>
                new InvalidArgumentException($"the server rejected durability level {durability}; key '{TernException.Describe(key)}'", key),
            ResponseStatus.UnknownCollection or ResponseStatus.UnknownScope when keyspace is not null =>
                new CollectionNotFoundException(keyspace.BucketName, keyspace.ScopeName, keyspace.CollectionName, key),
            ResponseStatus.NoBucket => new FeatureNotAvailableException(
                $"{opcode.Name()} of key '{TernException.Describe(key)}': no bucket is selected on the connection", key),
            ResponseStatus.Eaccess => new TernException(
                $"{opcode.Name()} of key '{TernException.Describe(key)}': the user may not do this (no access)", key),
            ResponseStatus.Enomem or ResponseStatus.Ebusy or ResponseStatus.Etmpfail or
                ResponseStatus.SyncWriteInProgress or ResponseStatus.SyncWriteReCommitInProgress =>
                new TemporaryFailureException(key, (ushort)status),
            ResponseStatus.UnknownCommand or ResponseStatus.NotSupported =>
                new FeatureNotAvailableException($"the server does not support {opcode.Name()} (status 0x{(ushort)status:x2}); key '{TernException.Describe(key)}'", key),
            ResponseStatus.Einval =>
                new InvalidArgumentException($"the server rejected {opcode.Name()} as invalid; key '{TernException.Describe(key)}'", key),
            _ => new TernException($"{opcode.Name()} failed with status 0x{(ushort)status:x2} ({status}); key '{TernException.Describe(key)}'", key),
        };
        error.SetStatus((ushort)status);
        return error;
    }
}
