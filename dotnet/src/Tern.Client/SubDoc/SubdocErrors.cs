using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.SubDoc;

/// <summary>
/// The one mapping from a sub-document status to the exception callers catch: per spec (with its
/// path and the caller's index) or for a whole LookupIn/MutateIn (no path). Statuses that are not
/// the sub-document's own (KeyEnoent, Locked, durability...) fall through to <see cref="StatusErrors"/>.
/// </summary>
internal static class SubdocErrors
{
    private const ushort FirstSubdocStatus = 0xc0;
    private const ushort LastSubdocStatus = 0xd8;

    public static Exception For(Opcode opcode, ResponseStatus status, string key, bool hadCas, DurabilityLevel durability,
        IKeyspaceName? keyspace, string? path = null, int? index = null)
    {
        TernException? error = status switch
        {
            ResponseStatus.SubdocPathEnoent => new PathNotFoundException(key, path, index),
            ResponseStatus.SubdocPathEexists => new PathExistsException(key, path, index),
            ResponseStatus.SubdocPathMismatch => new PathMismatchException(key, path, index),
            ResponseStatus.SubdocPathEinval => new PathInvalidException(key, path, index),
            ResponseStatus.SubdocPathE2big => new PathTooBigException(key, path, index),
            ResponseStatus.SubdocDocE2deep => new DocumentTooDeepException(key, path, index),
            ResponseStatus.SubdocDocNotJson => new DocumentNotJsonException(key, path, index),
            ResponseStatus.SubdocValueCantinsert => new ValueInvalidException(key, path, index),
            ResponseStatus.SubdocValueEtoodeep => new ValueTooDeepException(key, path, index),
            ResponseStatus.SubdocNumErange => new NumberTooBigException(key, path, index),
            ResponseStatus.SubdocDeltaEinval => new DeltaInvalidException(key, path, index),
            ResponseStatus.SubdocXattrInvalidFlagCombo => new XattrException("invalid combination of XATTR flags", key, path, index),
            ResponseStatus.SubdocXattrInvalidKeyCombo => new XattrException("these XATTR keys cannot be used together", key, path, index),
            ResponseStatus.SubdocXattrUnknownMacro => new XattrException("unknown macro", key, path, index),
            ResponseStatus.SubdocXattrUnknownVattr => new XattrException("unknown virtual attribute", key, path, index),
            ResponseStatus.SubdocXattrCantModifyVattr => new XattrException("virtual attributes cannot be changed", key, path, index),
            ResponseStatus.SubdocInvalidXattrOrder => new XattrException("XATTR specs must come before body specs", key, path, index),
            ResponseStatus.SubdocXattrUnknownVattrMacro => new XattrException("unknown virtual attribute macro", key, path, index),
            ResponseStatus.XattrEinval => new XattrException("invalid extended attributes", key, path, index),
            ResponseStatus.SubdocInvalidCombo => new InvalidArgumentException(
                $"the server refused this combination of sub-document specs or flags; key '{TernException.Describe(key)}'", key),
            // Without a CAS, only StoreSemantics.Insert makes a sub-document mutation fail on an existing document.
            ResponseStatus.KeyEexists or ResponseStatus.NotStored when opcode == Opcode.SubdocMultiMutation && !hadCas =>
                new DocumentExistsException(key),
            _ when (ushort)status is >= FirstSubdocStatus and <= LastSubdocStatus =>
                new SubDocException($"sub-document failure {status} (status 0x{(ushort)status:x2})", key, path, index),
            _ => null,
        };
        if (error is null)
            return StatusErrors.For(opcode, status, key, hadCas, durability, keyspace);
        error.SetStatus((ushort)status);
        return error;
    }
}
