namespace Tern.Client;

/// <summary>
/// A value the server replaces, as it applies the mutation, with a fact about the mutation itself.
/// Pass one as the value of an XATTR spec: the spec then goes out with the xattr and expand-macros
/// path flags, whatever isXattr says (macros exist only in extended attributes).
/// </summary>
public interface IMutationMacro
{
    /// <summary>The macro as the protocol spells it, e.g. <c>${Mutation.CAS}</c>.</summary>
    string Macro { get; }
}

/// <summary>The macros the server expands (the official SDKs' MutationMacro).</summary>
public static class MutationMacro
{
    /// <summary>
    /// The document's new CAS, as the server writes it: a JSON string of "0x" and 16 hex digits of the
    /// CAS's little-endian bytes (reverse them to compare with <see cref="MutateInResult.Cas"/>).
    /// </summary>
    public static IMutationMacro Cas { get; } = new Named("${Mutation.CAS}");

    /// <summary>The mutation's sequence number, as a JSON string of hex digits in the server's format.</summary>
    public static IMutationMacro SeqNo { get; } = new Named("${Mutation.seqno}");

    /// <summary>The CRC32C of the document's new body, as a JSON string of hex digits in the server's format.</summary>
    public static IMutationMacro ValueCRC32c { get; } = new Named("${Mutation.value_crc32c}");

    private sealed class Named(string macro) : IMutationMacro
    {
        public string Macro => macro;

        public override string ToString() => macro;
    }
}
