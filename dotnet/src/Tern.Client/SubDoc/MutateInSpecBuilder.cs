using System.Buffers;
using Tern.Client.Protocol;
using Tern.Client.SubDoc;
using Tern.Client.Transcoders;

namespace Tern.Client;

/// <summary>
/// The specs of a MutateIn, applied in order and atomically: all or none. Handed to the callback of
/// <see cref="Collection.MutateInAsync"/> and valid only while it runs: the SDK reuses the builder
/// afterwards. Each value is serialized to JSON as its spec is added (strings as JSON strings,
/// other objects through the operation's transcoder, see <see cref="ClusterOptions.Transcoder"/>).
/// At most 16 specs, paths of at most 1024 UTF-8 bytes (<see cref="ArgumentException"/> otherwise,
/// before anything is sent). XATTR specs go on the wire before the others, as the server requires;
/// results and errors still name the caller's index. An <see cref="IMutationMacro"/> value makes
/// its spec an XATTR spec whose value the server expands. The method names are the official SDKs'.
/// </summary>
public sealed class MutateInSpecBuilder
{
    // Rent takes the builder out of the slot, so a callback that starts another MutateIn gets one of its own.
    [ThreadStatic] private static MutateInSpecBuilder? t_cached;

    private const int InitialValueCapacity = 256;

    // One huge value must not pin its buffer to a thread forever.
    private const int RetainedValueCapacity = 64 * 1024;

    private ArrayBufferWriter<byte> _values = new(InitialValueCapacity);
    private ITypeTranscoder _transcoder = JsonTranscoder.Default;
    private bool _active;

    private MutateInSpecBuilder()
    {
    }

    internal SubdocSpecList Specs { get; } = new();

    /// <summary>Every spec's value, back to back; each <see cref="SubdocSpec"/> says where its own is.</summary>
    internal ReadOnlySpan<byte> Values => _values.WrittenSpan;

    /// <summary>Adds a new field; <see cref="Exceptions.PathExistsException"/> if it is there.</summary>
    public MutateInSpecBuilder Insert<T>(string path, T value, bool createPath = false, bool isXattr = false) =>
        AddValue(Opcode.SubdocDictAdd, path, value, createPath, isXattr);

    /// <summary>Sets a field, whether or not it exists.</summary>
    public MutateInSpecBuilder Upsert<T>(string path, T value, bool createPath = false, bool isXattr = false) =>
        AddValue(Opcode.SubdocDictUpsert, path, value, createPath, isXattr);

    /// <summary>Replaces an existing value; <see cref="Exceptions.PathNotFoundException"/> if it is missing. An empty path replaces the whole body (<see cref="SetDoc"/>).</summary>
    public MutateInSpecBuilder Replace<T>(string path, T value, bool isXattr = false) =>
        path is "" && !isXattr ? SetDoc(value) : AddValue(Opcode.SubdocReplace, path, value, createPath: false, isXattr);

    /// <summary>Replaces the whole document body (SET in a multi-mutation).</summary>
    public MutateInSpecBuilder SetDoc<T>(T value) => AddValue(Opcode.Set, "", value, createPath: false, isXattr: false);

    /// <summary>Removes the value at the path. An empty path removes the whole body (DELETE in a multi-mutation).</summary>
    public MutateInSpecBuilder Remove(string path, bool isXattr = false)
    {
        var opcode = path is "" && !isXattr ? Opcode.Delete : Opcode.SubdocDelete;
        return Add(opcode, path, Flags(createPath: false, isXattr), _values.WrittenCount);
    }

    /// <summary>Appends the values, in order, to the array at the path.</summary>
    public MutateInSpecBuilder ArrayAppend<T>(string path, T[] values, bool createPath = false, bool isXattr = false) =>
        AddValues(Opcode.SubdocArrayPushLast, path, values, createPath, isXattr);

    public MutateInSpecBuilder ArrayAppend<T>(string path, T value, bool createPath = false, bool isXattr = false) =>
        AddValue(Opcode.SubdocArrayPushLast, path, value, createPath, isXattr);

    /// <summary>Prepends the values, in order, to the array at the path.</summary>
    public MutateInSpecBuilder ArrayPrepend<T>(string path, T[] values, bool createPath = false, bool isXattr = false) =>
        AddValues(Opcode.SubdocArrayPushFirst, path, values, createPath, isXattr);

    public MutateInSpecBuilder ArrayPrepend<T>(string path, T value, bool createPath = false, bool isXattr = false) =>
        AddValue(Opcode.SubdocArrayPushFirst, path, value, createPath, isXattr);

    /// <summary>Inserts the values at the array position the path ends with (e.g. <c>tags[1]</c>).</summary>
    public MutateInSpecBuilder ArrayInsert<T>(string path, T[] values, bool createPath = false, bool isXattr = false) =>
        AddValues(Opcode.SubdocArrayInsert, path, values, createPath, isXattr);

    public MutateInSpecBuilder ArrayInsert<T>(string path, T value, bool createPath = false, bool isXattr = false) =>
        AddValue(Opcode.SubdocArrayInsert, path, value, createPath, isXattr);

    /// <summary>Appends a primitive value unless the array has it; <see cref="Exceptions.PathExistsException"/> if it does.</summary>
    public MutateInSpecBuilder ArrayAddUnique<T>(string path, T value, bool createPath = false, bool isXattr = false) =>
        AddValue(Opcode.SubdocArrayAddUnique, path, value, createPath, isXattr);

    /// <summary>Adds <paramref name="delta"/> to the number at the path (created as 0 if missing); read the result with <see cref="MutateInResult.ContentAs{T}(int)"/>.</summary>
    public MutateInSpecBuilder Increment(string path, long delta, bool createPath = false, bool isXattr = false) =>
        AddCounter(path, delta, createPath, isXattr);

    /// <summary>Subtracts <paramref name="delta"/> (its magnitude: the sign is ignored, as in the official SDK) from the number at the path.</summary>
    public MutateInSpecBuilder Decrement(string path, long delta, bool createPath = false, bool isXattr = false) =>
        AddCounter(path, delta > 0 ? -delta : delta, createPath, isXattr);

    /// <summary>Sets a field to JSON the caller has already encoded (a transaction's staged document), written as it is.</summary>
    internal MutateInSpecBuilder UpsertJson(string path, ReadOnlySpan<byte> json, bool isXattr, bool createPath = false)
    {
        var offset = Begin();
        _values.Write(json);
        return Add(Opcode.SubdocDictUpsert, path, Flags(createPath, isXattr), offset);
    }

    /// <summary>Sets an XATTR to raw bytes (the binary-value path flag, HELLO SubdocBinaryXattr): a transaction's staged binary document.</summary>
    internal MutateInSpecBuilder UpsertBinaryXattr(string path, ReadOnlySpan<byte> bytes, bool createPath = false)
    {
        var offset = Begin();
        _values.Write(bytes);
        return Add(Opcode.SubdocDictUpsert, path, Flags(createPath, isXattr: true) | SubdocPathFlags.BinaryValue, offset);
    }

    /// <summary>Sets the whole body to bytes the caller has already encoded (JSON or not), written as they are.</summary>
    internal MutateInSpecBuilder SetDocRaw(ReadOnlySpan<byte> body)
    {
        var offset = Begin();
        _values.Write(body);
        return Add(Opcode.Set, "", SubdocPathFlags.None, offset);
    }

    /// <summary>Replaces the document body with the value of the XATTR at <paramref name="xattrPath"/>, server-side (no value crosses the network).</summary>
    internal MutateInSpecBuilder ReplaceBodyWithXattr(string xattrPath, bool binary = false)
    {
        var offset = Begin();
        var flags = SubdocPathFlags.Xattr | (binary ? SubdocPathFlags.BinaryValue : SubdocPathFlags.None);
        return Add(Opcode.SubdocReplaceBodyWithXattr, xattrPath, flags, offset);
    }

    internal static MutateInSpecBuilder Rent(string key, ITypeTranscoder transcoder)
    {
        var builder = t_cached ?? new MutateInSpecBuilder();
        t_cached = null;
        builder.Specs.Begin("MutateIn", key);
        builder._transcoder = transcoder;
        builder._active = true;
        return builder;
    }

    internal void Return()
    {
        _active = false;
        Specs.Clear();
        _transcoder = JsonTranscoder.Default;
        if (_values.Capacity > RetainedValueCapacity)
            _values = new ArrayBufferWriter<byte>(InitialValueCapacity);
        else
            _values.ResetWrittenCount();
        t_cached = this;
    }

    private MutateInSpecBuilder AddValue<T>(Opcode opcode, string path, T value, bool createPath, bool isXattr)
    {
        var offset = Begin();
        var flags = Flags(createPath, isXattr);
        if (value is IMutationMacro)
            flags |= SubdocPathFlags.Xattr | SubdocPathFlags.ExpandMacros;
        SubdocValueWriter.Write(_values, value, _transcoder);
        return Add(opcode, path, flags, offset);
    }

    private MutateInSpecBuilder AddValues<T>(Opcode opcode, string path, T[] values, bool createPath, bool isXattr)
    {
        ArgumentNullException.ThrowIfNull(values);
        var offset = Begin();
        SubdocValueWriter.WriteList<T>(_values, values, _transcoder);
        return Add(opcode, path, Flags(createPath, isXattr), offset);
    }

    private MutateInSpecBuilder AddCounter(string path, long delta, bool createPath, bool isXattr)
    {
        var offset = Begin();
        SubdocValueWriter.WriteNumber(_values, delta);
        return Add(Opcode.SubdocCounter, path, Flags(createPath, isXattr), offset);
    }

    /// <summary>Checks the builder may be used; returns where the next value starts.</summary>
    private int Begin()
    {
        if (!_active)
            throw new InvalidOperationException("a MutateInSpecBuilder is valid only inside the MutateInAsync callback it was given to");
        return _values.WrittenCount;
    }

    private MutateInSpecBuilder Add(Opcode opcode, string path, SubdocPathFlags flags, int valueOffset)
    {
        Begin();
        Specs.Add(new SubdocSpec(opcode, flags, path, valueOffset, _values.WrittenCount - valueOffset));
        return this;
    }

    private static SubdocPathFlags Flags(bool createPath, bool isXattr) =>
        (createPath ? SubdocPathFlags.CreatePath : SubdocPathFlags.None) | (isXattr ? SubdocPathFlags.Xattr : SubdocPathFlags.None);
}
