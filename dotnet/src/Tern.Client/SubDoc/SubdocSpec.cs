using Tern.Client.Protocol;

namespace Tern.Client.SubDoc;

/// <summary>
/// One spec as a builder keeps it until the request is encoded: the opcode, the path flags, the
/// caller's path string (encoded only then, straight into the request) and where the spec's value
/// lies in the builder's value buffer (mutations; 0 and 0 for lookups).
/// </summary>
internal readonly record struct SubdocSpec(Opcode Opcode, SubdocPathFlags Flags, string Path, int ValueOffset = 0, int ValueLength = 0)
{
    public bool IsXattr => (Flags & SubdocPathFlags.Xattr) != 0;
}
