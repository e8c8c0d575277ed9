using System.Buffers;
using System.Text.Json;

namespace Tern.Client.Transactions;

/// <summary>
/// The JSON the protocol writes and reads: a staged document's <c>txn</c> links, the ATR's lists
/// of documents and its entries, and the answers of the virtual XATTRs. Field names are the
/// official SDKs' (short on purpose: an ATR holds many entries in one document).
/// </summary>
internal static class TxnJson
{
    // A binary document's links tell clients without binary support to stay away (what the official SDKs write).
    private static readonly string[] BinaryStages = ["WW_I", "WW_IG", "G", "CL_E"];

    private static readonly byte[] EmptyList = "[]"u8.ToArray();

    private const int RetainedCapacity = 64 * 1024;

    // One writer and buffer per thread, reused: the JSON is copied out, the writer kept.
    [ThreadStatic] private static ArrayBufferWriter<byte>? t_buffer;
    [ThreadStatic] private static Utf8JsonWriter? t_writer;

    /// <summary>The <c>txn</c> object of a staged change, without its content and CRC (separate specs add them).</summary>
    public static byte[] Links(string transactionId, string attemptId, string operationId, DocId atr, StagedType type,
        uint stagedFlags, DocumentMetadata? restore, bool binary) =>
        Write((transactionId, attemptId, operationId, atr, type, stagedFlags, restore, binary), static (writer, links) =>
        {
            var (transactionId, attemptId, operationId, atr, type, stagedFlags, restore, binary) = links;
            writer.WriteStartObject();
            writer.WriteStartObject("id");
            writer.WriteString("txn", transactionId);
            writer.WriteString("atmpt", attemptId);
            writer.WriteString("op", operationId);
            writer.WriteEndObject();
            writer.WriteStartObject("atr");
            writer.WriteString("id", atr.Key);
            writer.WriteString("bkt", atr.Keyspace.Bucket);
            writer.WriteString("scp", atr.Keyspace.Scope);
            writer.WriteString("coll", atr.Keyspace.Collection);
            writer.WriteEndObject();
            writer.WriteStartObject("op");
            writer.WriteString("type", StagedTypes.Name(type));
            writer.WriteEndObject();
            writer.WriteStartObject("aux");
            writer.WriteNumber("uf", stagedFlags);
            writer.WriteEndObject();
            if (restore is not null && (restore.Cas ?? restore.RevId ?? (object?)restore.ExpiryTime) is not null)
            {
                writer.WriteStartObject("restore");
                if (restore.Cas is not null)
                    writer.WriteString("CAS", restore.Cas);
                if (restore.RevId is not null)
                    writer.WriteString("revid", restore.RevId);
                if (restore.ExpiryTime is { } expiry)
                    writer.WriteNumber("exptime", expiry);
                writer.WriteEndObject();
            }
            if (binary)
            {
                writer.WriteStartObject("fc");
                foreach (var stage in BinaryStages)
                {
                    writer.WriteStartArray(stage);
                    writer.WriteStartObject();
                    writer.WriteString("e", "BS");
                    writer.WriteString("b", "f");
                    writer.WriteEndObject();
                    writer.WriteEndArray();
                }
                writer.WriteEndObject();
            }
            writer.WriteEndObject();
        });

    /// <summary>An ATR list (<c>ins</c>, <c>rep</c>, <c>rem</c>): one object per document, its collection as <c>col</c>.</summary>
    public static byte[] DocList(IReadOnlyList<DocId> docs) => docs.Count == 0
        ? EmptyList
        : Write(docs, static (writer, docs) =>
        {
            writer.WriteStartArray();
            foreach (var doc in docs)
            {
                writer.WriteStartObject();
                writer.WriteString("id", doc.Key);
                writer.WriteString("bkt", doc.Keyspace.Bucket);
                writer.WriteString("scp", doc.Keyspace.Scope);
                writer.WriteString("col", doc.Keyspace.Collection);
                writer.WriteEndObject();
            }
            writer.WriteEndArray();
        });

    private static byte[] Write<TState>(TState state, Action<Utf8JsonWriter, TState> write)
    {
        var buffer = t_buffer ??= new ArrayBufferWriter<byte>(512);
        buffer.ResetWrittenCount();
        var writer = t_writer;
        if (writer is null)
            t_writer = writer = new Utf8JsonWriter(buffer);
        else
            writer.Reset(buffer);
        write(writer, state);
        writer.Flush();
        var json = buffer.WrittenSpan.ToArray();
        if (buffer.Capacity > RetainedCapacity)
            t_buffer = null; // a huge list must not pin its buffer to the thread
        return json;
    }

    /// <summary>Every entry of an ATR's <c>attempts</c> XATTR.</summary>
    public static List<AtrEntry> Entries(JsonElement attempts)
    {
        var entries = new List<AtrEntry>();
        if (attempts.ValueKind != JsonValueKind.Object)
            return entries;
        foreach (var attempt in attempts.EnumerateObject())
        {
            var entry = attempt.Value;
            if (entry.ValueKind != JsonValueKind.Object)
                continue;
            entries.Add(new AtrEntry(
                attempt.Name,
                String(entry, "tid"),
                AttemptStates.Parse(String(entry, "st")),
                ServerClock.MillisecondsOfMacroCas(String(entry, "tst")),
                entry.TryGetProperty("exp", out var exp) && exp.TryGetInt64(out var ms) ? Math.Max(0, ms) : 0,
                String(entry, "d") is { } code ? DurabilityCodes.Parse(code) : null,
                Docs(entry, "ins"),
                Docs(entry, "rep"),
                Docs(entry, "rem"),
                ForwardCompat.From(entry.TryGetProperty("fc", out var fc) ? fc : null)));
        }
        return entries;
    }

    /// <summary>The server clock of a <c>$vbucket</c> XATTR answer (<c>{"HLC":{"now":"&lt;seconds&gt;"}}</c>), in ms.</summary>
    public static long HlcNowMs(JsonElement vbucket) =>
        vbucket.ValueKind == JsonValueKind.Object && vbucket.TryGetProperty("HLC", out var hlc) && hlc.ValueKind == JsonValueKind.Object
            ? ServerClock.MillisecondsOfHlc(String(hlc, "now"))
            : 0;

    public static string? String(JsonElement element, string name) =>
        element.ValueKind == JsonValueKind.Object && element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String
            ? value.GetString()
            : null;

    private static List<DocId> Docs(JsonElement entry, string name)
    {
        var docs = new List<DocId>();
        if (!entry.TryGetProperty(name, out var list) || list.ValueKind != JsonValueKind.Array)
            return docs;
        foreach (var doc in list.EnumerateArray())
        {
            if (String(doc, "id") is { } key && String(doc, "bkt") is { } bucket)
                docs.Add(new DocId(new TransactionKeyspace(bucket, String(doc, "scp") ?? "_default", String(doc, "col") ?? "_default"), key));
        }
        return docs;
    }
}
