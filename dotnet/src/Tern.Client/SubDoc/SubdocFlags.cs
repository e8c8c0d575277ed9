namespace Tern.Client.SubDoc;

/// <summary>Per-spec path flags of a sub-document request (one byte after the spec's opcode).</summary>
[Flags]
internal enum SubdocPathFlags : byte
{
    None = 0x00,

    /// <summary>Create the missing parents of the path (mkdir -p).</summary>
    CreatePath = 0x01,

    /// <summary>The path addresses the document's extended attributes, not its body.</summary>
    Xattr = 0x04,

    /// <summary>The value is a macro (e.g. "${Mutation.CAS}") the server expands; only with <see cref="Xattr"/>.</summary>
    ExpandMacros = 0x10,

    /// <summary>The XATTR value is raw bytes, not JSON (HELLO SubdocBinaryXattr): a binary document staged by a transaction.</summary>
    BinaryValue = 0x20,
}

/// <summary>Per-request document flags of a sub-document request (the last byte of its extras).</summary>
[Flags]
internal enum SubdocDocFlags : byte
{
    None = 0x00,

    /// <summary>Create the document if it is missing (<see cref="StoreSemantics.Upsert"/>).</summary>
    Mkdoc = 0x01,

    /// <summary>Create the document; fail if it exists (<see cref="StoreSemantics.Insert"/>).</summary>
    Add = 0x02,

    /// <summary>A deleted document (tombstone) is a document to read and change.</summary>
    AccessDeleted = 0x04,

    /// <summary>Create the document as a tombstone (with <see cref="Mkdoc"/> or <see cref="Add"/>, and <see cref="AccessDeleted"/>).</summary>
    CreateAsDeleted = 0x08,

    /// <summary>Bring a tombstone back to life, its body the one this request sets (with <see cref="AccessDeleted"/>): a transaction's committed insert.</summary>
    ReviveDocument = 0x10,

    /// <summary>Read the replica's copy (sent to a replica node).</summary>
    ReplicaRead = 0x20,
}
