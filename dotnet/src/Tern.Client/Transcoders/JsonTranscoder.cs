using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using Tern.Client.Protocol;

namespace Tern.Client.Transcoders;

/// <summary>
/// The default transcoder. byte[], ReadOnlyMemory&lt;byte&gt; and Memory&lt;byte&gt; are stored as raw bytes and
/// strings as UTF-8 text, without serialization; anything else goes through System.Text.Json
/// with the given options. Pass a source-generated <see cref="JsonSerializerContext"/> for
/// reflection-free (AOT-safe) serialization.
/// </summary>
public sealed class JsonTranscoder : ITypeTranscoder
{
    [ThreadStatic] private static Utf8JsonWriter? t_writer;

    private readonly JsonSerializerOptions _options;

    public JsonTranscoder(JsonSerializerOptions? options = null) => _options = options ?? JsonSerializerOptions.Default;

    public JsonTranscoder(JsonSerializerContext context) => _options = context.Options;

    public static JsonTranscoder Default { get; } = new();

    public void Encode<T>(IBufferWriter<byte> destination, T value, out uint flags, out Datatype datatype)
    {
        switch (value)
        {
            case byte[] bytes:
                destination.Write(bytes);
                (flags, datatype) = (DocumentFlags.Binary, Datatype.Raw);
                return;
            case ReadOnlyMemory<byte> memory:
                destination.Write(memory.Span);
                (flags, datatype) = (DocumentFlags.Binary, Datatype.Raw);
                return;
            case Memory<byte> memory:
                destination.Write(memory.Span);
                (flags, datatype) = (DocumentFlags.Binary, Datatype.Raw);
                return;
            case string text:
                var span = destination.GetSpan(Encoding.UTF8.GetMaxByteCount(text.Length));
                destination.Advance(Encoding.UTF8.GetBytes(text, span));
                (flags, datatype) = (DocumentFlags.String, Datatype.Raw);
                return;
        }
        WriteJson(destination, value, (JsonTypeInfo<T>)_options.GetTypeInfo(typeof(T)));
        (flags, datatype) = (DocumentFlags.Json, Datatype.Json);
    }

    public T? Decode<T>(ReadOnlySpan<byte> content, uint flags, Datatype datatype)
    {
        if (typeof(T) == typeof(byte[]))
            return (T)(object)content.ToArray();
        if (typeof(T) == typeof(ReadOnlyMemory<byte>))
            return (T)(object)new ReadOnlyMemory<byte>(content.ToArray());
        if (typeof(T) == typeof(string) && (flags & 0xff000000) != DocumentFlags.Json)
            return (T)(object)Encoding.UTF8.GetString(content);
        return JsonSerializer.Deserialize(content, (JsonTypeInfo<T>)_options.GetTypeInfo(typeof(T)));
    }

    /// <summary>Serializes with an explicit (typically source-generated) type info.</summary>
    public static void WriteJson<T>(IBufferWriter<byte> destination, T value, JsonTypeInfo<T> typeInfo)
    {
        var writer = t_writer;
        if (writer is null)
            t_writer = writer = new Utf8JsonWriter(destination);
        else
            writer.Reset(destination);
        try
        {
            JsonSerializer.Serialize(writer, value, typeInfo);
            writer.Flush();
        }
        finally
        {
            writer.Reset(NullBufferWriter.Instance);
        }
    }

    /// <summary>Lets the cached writer drop its reference to the last destination.</summary>
    private sealed class NullBufferWriter : IBufferWriter<byte>
    {
        public static readonly NullBufferWriter Instance = new();
        public void Advance(int count) { }
        public Memory<byte> GetMemory(int sizeHint = 0) => Memory<byte>.Empty;
        public Span<byte> GetSpan(int sizeHint = 0) => Span<byte>.Empty;
    }
}
