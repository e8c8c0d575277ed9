using System.Text.Json.Nodes;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.Exceptions;
using Tern.Client.Transactions;

namespace Tern.Client.Tests.Transactions.Unit;

/// <summary>
/// An in-memory store that answers the transaction protocol's requests (<see cref="ITransactionKv"/>)
/// as a server would: documents with CAS, tombstones and <c>txn</c> links, ATRs with entries and
/// their <c>p</c> guard, the server clock read from the test's <see cref="FakeTimeProvider"/>. A
/// test scripts faults per step: an error before the request applies, an ambiguous error after it
/// applied, the clock jumping forward, or any action of its own.
/// </summary>
internal sealed class ScriptedKv(FakeTimeProvider time) : ITransactionKv, ICleanupKv
{
    private readonly object _lock = new();
    private readonly Dictionary<DocId, Doc> _docs = [];
    private readonly Dictionary<DocId, Dictionary<string, Entry>> _atrs = [];
    private readonly List<Fault> _faults = [];
    private ulong _cas = 1000;

    /// <summary>The steps, named as <see cref="Step"/> names them, in the order they were asked for.</summary>
    public List<string> Calls { get; } = [];

    public void Put(DocId id, string json)
    {
        lock (_lock)
            _docs[id] = new Doc(System.Text.Encoding.UTF8.GetBytes(json), Transcoders.DocumentFlags.Json, ++_cas, false, null, null);
    }

    /// <summary>The committed body as a plain read sees it; null for a missing document or a tombstone.</summary>
    public string? Body(DocId id)
    {
        lock (_lock)
            return _docs.TryGetValue(id, out var doc) && !doc.Deleted ? System.Text.Encoding.UTF8.GetString(doc.Body) : null;
    }

    public bool HasLinks(DocId id)
    {
        lock (_lock)
            return _docs.TryGetValue(id, out var doc) && doc.Links is not null;
    }

    /// <summary>Every ATR entry left, as "attempt:STATE".</summary>
    public List<string> Entries()
    {
        lock (_lock)
            return _atrs.Values.SelectMany(e => e.Select(kv => $"{kv.Key}:{AttemptStates.Name(kv.Value.State)}")).ToList();
    }

    /// <summary>
    /// Stages a change by a foreign attempt (of another client) in <paramref name="id"/>, its entry
    /// PENDING: a replace of the document, or an insert (a tombstone with links) when it does not exist.
    /// </summary>
    public (DocId Atr, string Attempt) StageForeign(DocId id, string json)
    {
        var atr = new DocId(id.Keyspace with { Scope = "_default", Collection = "_default" }, "_txn:atr-0-#14");
        var attempt = "foreign-" + Guid.NewGuid().ToString("N")[..6];
        lock (_lock)
        {
            var links = new JsonObject
            {
                ["id"] = new JsonObject { ["txn"] = "foreign-txn", ["atmpt"] = attempt, ["op"] = "op" },
                ["atr"] = new JsonObject { ["id"] = atr.Key, ["bkt"] = atr.Keyspace.Bucket, ["scp"] = "_default", ["coll"] = "_default" },
                ["op"] = new JsonObject { ["type"] = _docs.ContainsKey(id) ? "replace" : "insert" },
            };
            var doc = _docs.TryGetValue(id, out var existing) ? existing : new Doc([], Transcoders.DocumentFlags.Json, 0, true, null, null);
            _docs[id] = doc with { Cas = ++_cas, Links = links, Staged = System.Text.Encoding.UTF8.GetBytes(json) };
            Atr(atr)[attempt] = new Entry("foreign-txn", AttemptState.Pending, NowMs(), 15000, false, null);
        }
        return (atr, attempt);
    }

    /// <summary>The foreign attempt gives up: its links and its entry go, as a rollback leaves them.</summary>
    public void RollBackForeign(DocId id, (DocId Atr, string Attempt) foreign)
    {
        lock (_lock)
        {
            _docs[id] = _docs[id] with { Cas = ++_cas, Links = null, Staged = null };
            Atr(foreign.Atr).Remove(foreign.Attempt);
        }
    }

    /// <summary>Before the <paramref name="occurrence"/>-th call of <paramref name="step"/>: run <paramref name="action"/>.</summary>
    public void Before(string step, Action action, int occurrence = 1) => _faults.Add(new Fault(step, occurrence, action, null, false));

    /// <summary>The <paramref name="occurrence"/>-th call of <paramref name="step"/> fails with <paramref name="error"/>; with <paramref name="applied"/> the request took effect first (an ambiguous write that landed).</summary>
    public void Fail(string step, Exception error, bool applied = false, int occurrence = 1) =>
        _faults.Add(new Fault(step, occurrence, null, error, applied));

    public ValueTask<TxnDocument?> GetAsync(DocId id, CancellationToken cancellationToken) => Step("Get", () =>
    {
        if (!_docs.TryGetValue(id, out var doc))
            return null;
        return new TxnDocument(id, doc.Cas, doc.Deleted, doc.Body, doc.Flags, Links(doc), new DocumentMetadata(
            $"0x{doc.Cas:x16}", "1", 0, Crc(doc.Body), doc.Flags));
    });

    public ValueTask<AtrDocument?> GetAtrAsync(DocId atr, CancellationToken cancellationToken) => Step("GetAtr", () =>
        _atrs.TryGetValue(atr, out var entries)
            ? new AtrDocument(entries.Select(e => new AtrEntry(e.Key, e.Value.TransactionId, e.Value.State, e.Value.StartMs, e.Value.ExpiresAfterMs,
                DurabilityLevel.None, e.Value.Docs?.Inserted ?? [], e.Value.Docs?.Replaced ?? [], e.Value.Docs?.Removed ?? [],
                ForwardCompat.None)).ToList(), NowMs())
            : (AtrDocument?)null);

    public ValueTask WriteAtrPendingAsync(DocId atr, AtrPendingWrite write, CancellationToken cancellationToken) => Step("AtrPending", () =>
    {
        var entries = Atr(atr);
        if (entries.ContainsKey(write.AttemptId))
            throw new PathExistsException(atr.Key, $"attempts.{write.AttemptId}");
        entries[write.AttemptId] = new Entry(write.TransactionId, AttemptState.Pending, NowMs(), write.ExpiresAfterMs, false, null);
        return true;
    });

    public ValueTask WriteAtrOutcomeAsync(DocId atr, AtrOutcomeWrite write, CancellationToken cancellationToken) =>
        Step(write.State == AttemptState.Committed ? "AtrCommitted" : "AtrAborted", () =>
        {
            if (!_atrs.TryGetValue(atr, out var entries) || !entries.TryGetValue(write.AttemptId, out var entry))
                throw new PathNotFoundException(atr.Key, $"attempts.{write.AttemptId}");
            if (write.State == AttemptState.Committed && entry.Guarded)
                throw new PathExistsException(atr.Key, $"attempts.{write.AttemptId}.p");
            entries[write.AttemptId] = entry with
            {
                State = write.State, Docs = write.Docs, Guarded = entry.Guarded || write.State == AttemptState.Committed,
            };
            return true;
        });

    public ValueTask RemoveAtrEntryAsync(DocId atr, string attemptId, bool guardPending, DurabilityLevel durability,
        CancellationToken cancellationToken) => Step("AtrRemove", () =>
    {
        if (!_atrs.TryGetValue(atr, out var entries) || !entries.TryGetValue(attemptId, out var entry))
            throw new PathNotFoundException(atr.Key, $"attempts.{attemptId}");
        if (guardPending && entry.Guarded)
            throw new PathExistsException(atr.Key, $"attempts.{attemptId}.p");
        entries.Remove(attemptId);
        return true;
    });

    public ValueTask<ulong> StageAsync(DocId id, StageWrite write, CancellationToken cancellationToken) => Step("Stage", () =>
    {
        _docs.TryGetValue(id, out var doc);
        if (write.Cas == 0)
        {
            if (doc is not null)
                throw new DocumentExistsException(id.Key);
            doc = new Doc([], write.UserFlags ?? 0, 0, true, null, null);
        }
        else
        {
            doc = Matching(id, write.Cas, write.AccessDeleted);
        }
        var links = JsonNode.Parse(write.Links.Span)!.AsObject();
        _docs[id] = doc with { Cas = ++_cas, Links = links, Staged = write.Content?.ToArray(), StagedFlags = links["aux"]?["uf"]?.GetValue<uint>() };
        return _cas;
    });

    public ValueTask<ulong> UnlinkAsync(DocId id, UnlinkWrite write, CancellationToken cancellationToken) => Step("Unlink", () =>
    {
        var doc = Matching(id, write.Cas, write.AccessDeleted);
        if (doc.Links is null)
            throw new PathNotFoundException(id.Key, "txn");
        _docs[id] = doc with { Cas = ++_cas, Links = null, Staged = null };
        return _cas;
    });

    public ValueTask<ulong> CommitAsync(DocId id, CommitWrite write, CancellationToken cancellationToken) => Step("Commit", () =>
    {
        var doc = Matching(id, write.Cas, write.FromTombstone);
        if (write.FromTombstone && !doc.Deleted)
            throw new DocumentExistsException(id.Key);
        var body = write.BodyFromXattr ? doc.Staged ?? throw new PathNotFoundException(id.Key, "txn.op.stgd") : write.Content.ToArray();
        _docs[id] = new Doc(body, write.Flags, ++_cas, false, null, null);
        return _cas;
    });

    public ValueTask RemoveAsync(DocId id, ulong cas, DurabilityLevel durability, CancellationToken cancellationToken) => Step("Remove", () =>
    {
        var doc = Matching(id, cas, accessDeleted: false);
        _docs[id] = doc with { Cas = ++_cas, Deleted = true, Body = [], Links = null, Staged = null };
        return true;
    });

    public bool CanRevive(string bucket) => true;

    public ValueTask<ClientRecord?> GetClientRecordAsync(TransactionKeyspace keyspace, CancellationToken cancellationToken) =>
        ValueTask.FromResult<ClientRecord?>(new ClientRecord([], false, 0, NowMs()));

    public ValueTask CreateClientRecordAsync(TransactionKeyspace keyspace, CancellationToken cancellationToken) => ValueTask.CompletedTask;

    public ValueTask HeartbeatAsync(TransactionKeyspace keyspace, string clientId, long expiresAfterMs, IReadOnlyList<string> expiredClients,
        CancellationToken cancellationToken) => ValueTask.CompletedTask;

    public ValueTask RemoveClientAsync(TransactionKeyspace keyspace, string clientId, CancellationToken cancellationToken) => ValueTask.CompletedTask;

    private ValueTask<T> Step<T>(string name, Func<T> apply)
    {
        List<Fault> faults;
        lock (_lock)
        {
            Calls.Add(name);
            var occurrence = Calls.Count(c => c == name);
            faults = _faults.FindAll(f => f.Step == name && f.Occurrence == occurrence);
        }
        foreach (var action in faults)
            action.Action?.Invoke();
        var fault = faults.Find(f => f.Error is not null);
        lock (_lock)
        {
            if (fault?.Error is { } error && !fault.Applied)
                return ValueTask.FromException<T>(error);
            T result;
            try
            {
                result = apply();
            }
            catch (Exception failure)
            {
                return ValueTask.FromException<T>(failure);
            }
            return fault?.Error is { } ambiguous ? ValueTask.FromException<T>(ambiguous) : ValueTask.FromResult(result);
        }
    }

    private async ValueTask Step(string name, Func<bool> apply) => await Step<bool>(name, apply);

    private Doc Matching(DocId id, ulong cas, bool accessDeleted)
    {
        if (!_docs.TryGetValue(id, out var doc) || (doc.Deleted && !accessDeleted))
            throw new DocumentNotFoundException(id.Key);
        if (cas != 0 && cas != doc.Cas)
            throw new CasMismatchException(id.Key);
        return doc;
    }

    private Dictionary<string, Entry> Atr(DocId atr) => _atrs.TryGetValue(atr, out var entries) ? entries : _atrs[atr] = [];

    private long NowMs() => time.GetUtcNow().ToUnixTimeMilliseconds();

    private static string Crc(byte[] body) => $"0x{System.IO.Hashing.Crc32.HashToUInt32(body):x8}";

    private static TxnLinks? Links(Doc doc)
    {
        if (doc.Links is not { } links)
            return null;
        var staged = doc.Staged;
        var binary = (doc.StagedFlags ?? Transcoders.DocumentFlags.Json) >> 24 != Transcoders.DocumentFlags.Json >> 24;
        return new TxnLinks(
            links["id"]?["txn"]?.GetValue<string>(), links["id"]?["atmpt"]?.GetValue<string>(), links["id"]?["op"]?.GetValue<string>(),
            links["atr"]?["id"]?.GetValue<string>(), links["atr"]?["bkt"]?.GetValue<string>(), links["atr"]?["scp"]?.GetValue<string>(),
            links["atr"]?["coll"]?.GetValue<string>(), StagedTypes.Parse(links["op"]?["type"]?.GetValue<string>()),
            staged is not null && !binary ? staged : null, staged is not null && binary ? staged : null, doc.StagedFlags,
            Crc(doc.Body), ForwardCompat.None);
    }

    private sealed record Doc(byte[] Body, uint Flags, ulong Cas, bool Deleted, JsonObject? Links, byte[]? Staged, uint? StagedFlags = null);

    private sealed record Entry(string TransactionId, AttemptState State, long StartMs, long ExpiresAfterMs, bool Guarded, StagedDocs? Docs);

    private sealed record Fault(string Step, int Occurrence, Action? Action, Exception? Error, bool Applied);
}
