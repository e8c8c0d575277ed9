using Tern.Client.Protocol;
using Tern.Client.SubDoc;

namespace Tern.Client;

/// <summary>
/// The specs of a LookupIn, in the order their results are read back (by index, from
/// <see cref="LookupInResult"/>). Handed to the callback of <see cref="Collection.LookupInAsync"/>
/// and valid only while it runs: the SDK reuses the builder afterwards. At most 16 specs, paths of
/// at most 1024 UTF-8 bytes (<see cref="ArgumentException"/> otherwise, before anything is sent).
/// XATTR specs go on the wire before the others, as the server requires; results still come back
/// by the caller's index. The method names are the official SDKs'.
/// </summary>
public sealed class LookupInSpecBuilder
{
    // Rent takes the builder out of the slot, so a callback that starts another LookupIn gets one of its own.
    [ThreadStatic] private static LookupInSpecBuilder? t_cached;

    private bool _active;

    private LookupInSpecBuilder()
    {
    }

    internal SubdocSpecList Specs { get; } = new();

    /// <summary>The value at <paramref name="path"/>; an empty path (not XATTR) is the whole document, as <see cref="GetFull"/>.</summary>
    public LookupInSpecBuilder Get(string path, bool isXattr = false) =>
        path is "" && !isXattr ? GetFull() : Add(Opcode.SubdocGet, path, isXattr);

    /// <summary>Whether <paramref name="path"/> exists: read with <see cref="LookupInResult.Exists"/> or <c>ContentAs&lt;bool&gt;</c>.</summary>
    public LookupInSpecBuilder Exists(string path, bool isXattr = false) => Add(Opcode.SubdocExists, path, isXattr);

    /// <summary>How many elements the array or members the object at <paramref name="path"/> has.</summary>
    public LookupInSpecBuilder Count(string path, bool isXattr = false) => Add(Opcode.SubdocGetCount, path, isXattr);

    /// <summary>The whole document body.</summary>
    public LookupInSpecBuilder GetFull() => Add(Opcode.Get, "", isXattr: false);

    /// <summary>The raw bytes of an XATTR written with the binary-value flag (HELLO SubdocBinaryXattr): a transaction's staged binary document.</summary>
    internal LookupInSpecBuilder GetBinaryXattr(string path) =>
        Add(Opcode.SubdocGet, path, SubdocPathFlags.Xattr | SubdocPathFlags.BinaryValue);

    internal static LookupInSpecBuilder Rent(string key)
    {
        var builder = t_cached ?? new LookupInSpecBuilder();
        t_cached = null;
        builder.Specs.Begin("LookupIn", key);
        builder._active = true;
        return builder;
    }

    internal void Return()
    {
        _active = false;
        Specs.Clear();
        t_cached = this;
    }

    private LookupInSpecBuilder Add(Opcode opcode, string path, bool isXattr) =>
        Add(opcode, path, isXattr ? SubdocPathFlags.Xattr : SubdocPathFlags.None);

    private LookupInSpecBuilder Add(Opcode opcode, string path, SubdocPathFlags flags)
    {
        if (!_active)
            throw new InvalidOperationException("a LookupInSpecBuilder is valid only inside the LookupInAsync callback it was given to");
        Specs.Add(new SubdocSpec(opcode, flags, path));
        return this;
    }
}
