using System.Buffers;
using System.Buffers.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using Tern.Client.Transcoders;

namespace Tern.Client.SubDoc;

/// <summary>
/// Writes a mutation spec's value as the JSON it must be, straight into the builder's value buffer.
/// Strings are JSON strings and byte arrays base64 JSON strings (as System.Text.Json writes them;
/// the transcoder would store both raw, which is right for a document and wrong for a fragment);
/// macros are their JSON string; everything else goes through the operation's transcoder, so a
/// <see cref="JsonTranscoder"/> built on a source-generated context serializes without reflection.
/// </summary>
internal static class SubdocValueWriter
{
    // Non-ASCII text goes out as UTF-8, as a JavaScript or C++ client writes it: the server compares
    // ArrayAddUnique values as they are spelled.
    private static readonly JsonWriterOptions WriterOptions = new() { Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    [ThreadStatic] private static Utf8JsonWriter? t_writer;

    public static void Write<T>(IBufferWriter<byte> destination, T value, ITypeTranscoder transcoder)
    {
        switch (value)
        {
            case null:
                destination.Write("null"u8);
                return;
            case IMutationMacro macro:
                WriteString(destination, macro.Macro);
                return;
            case string text:
                WriteString(destination, text);
                return;
            case byte[] bytes:
                WriteBase64(destination, bytes);
                return;
            case ReadOnlyMemory<byte> memory:
                WriteBase64(destination, memory.Span);
                return;
            case Memory<byte> memory:
                WriteBase64(destination, memory.Span);
                return;
        }
        transcoder.Encode(destination, value, out _, out _);
    }

    /// <summary>Writes several values as a JSON list without its brackets: what multi-value array specs carry.</summary>
    public static void WriteList<T>(IBufferWriter<byte> destination, ReadOnlySpan<T> values, ITypeTranscoder transcoder)
    {
        for (var i = 0; i < values.Length; i++)
        {
            if (i > 0)
                destination.Write(","u8);
            Write(destination, values[i], transcoder);
        }
    }

    /// <summary>A counter's delta as a JSON number.</summary>
    public static void WriteNumber(IBufferWriter<byte> destination, long number)
    {
        var span = destination.GetSpan(20);
        Utf8Formatter.TryFormat(number, span, out var written);
        destination.Advance(written);
    }

    private static void WriteString(IBufferWriter<byte> destination, string text)
    {
        var writer = Writer(destination);
        writer.WriteStringValue(text);
        Release(writer);
    }

    private static void WriteBase64(IBufferWriter<byte> destination, ReadOnlySpan<byte> bytes)
    {
        var writer = Writer(destination);
        writer.WriteBase64StringValue(bytes);
        Release(writer);
    }

    private static Utf8JsonWriter Writer(IBufferWriter<byte> destination)
    {
        var writer = t_writer;
        if (writer is null)
            t_writer = writer = new Utf8JsonWriter(destination, WriterOptions);
        else
            writer.Reset(destination);
        return writer;
    }

    /// <summary>Flushes into the destination and lets the cached writer drop its reference to it.</summary>
    private static void Release(Utf8JsonWriter writer)
    {
        writer.Flush();
        writer.Reset(NullBufferWriter.Instance);
    }

    /// <summary>Where the cached writer points between uses (a stream would make it allocate a buffer of its own).</summary>
    private sealed class NullBufferWriter : IBufferWriter<byte>
    {
        public static readonly NullBufferWriter Instance = new();

        public void Advance(int count)
        {
        }

        public Memory<byte> GetMemory(int sizeHint = 0) => Memory<byte>.Empty;

        public Span<byte> GetSpan(int sizeHint = 0) => Span<byte>.Empty;
    }
}
