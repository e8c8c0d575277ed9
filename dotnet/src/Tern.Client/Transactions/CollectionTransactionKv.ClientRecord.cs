using System.Text.Json;
using Tern.Client.Exceptions;

namespace Tern.Client.Transactions;

internal sealed partial class CollectionTransactionKv : ICleanupKv
{
    private const string ClientRecordKey = "_txn:client-record";

    // At most 16 specs in a mutation: the heartbeat's three and the body leave room for 12 removals.
    private const int MaxRemovedPerHeartbeat = 12;

    public async ValueTask<ClientRecord?> GetClientRecordAsync(TransactionKeyspace keyspace, CancellationToken cancellationToken)
    {
        LookupInResult result;
        try
        {
            result = await collections(keyspace).LookupInAsync(ClientRecordKey,
                static specs => specs.Get("records", isXattr: true).Get("$vbucket", isXattr: true),
                new LookupInOptions { CancellationToken = cancellationToken }).ConfigureAwait(false);
        }
        catch (DocumentNotFoundException)
        {
            return null;
        }
        using (result)
        {
            var records = Element(result, 0);
            var clients = new List<ClientEntry>();
            if (records.ValueKind == JsonValueKind.Object && records.TryGetProperty("clients", out var entries) &&
                entries.ValueKind == JsonValueKind.Object)
            {
                foreach (var client in entries.EnumerateObject())
                {
                    clients.Add(new ClientEntry(client.Name, ServerClock.MillisecondsOfMacroCas(TxnJson.String(client.Value, "heartbeat_ms")),
                        client.Value.ValueKind == JsonValueKind.Object && client.Value.TryGetProperty("expires_ms", out var expires) &&
                        expires.TryGetInt64(out var ms) ? ms : 0));
                }
            }
            var (enabled, expiresNs) = (false, 0L);
            if (records.ValueKind == JsonValueKind.Object && records.TryGetProperty("override", out var overriding) &&
                overriding.ValueKind == JsonValueKind.Object)
            {
                enabled = overriding.TryGetProperty("enabled", out var e) && e.ValueKind == JsonValueKind.True;
                expiresNs = overriding.TryGetProperty("expires", out var x) && x.TryGetInt64(out var ns) ? ns : 0;
            }
            return new ClientRecord(clients, enabled, expiresNs, TxnJson.HlcNowMs(Element(result, 1)));
        }
    }

    public async ValueTask CreateClientRecordAsync(TransactionKeyspace keyspace, CancellationToken cancellationToken) =>
        await collections(keyspace).MutateInAsync(ClientRecordKey,
            static specs => specs.UpsertJson("records.clients", "{}"u8, isXattr: true, createPath: true).SetDocRaw(AtrBody),
            new MutateInOptions { StoreSemantics = StoreSemantics.Insert, CancellationToken = cancellationToken }).ConfigureAwait(false);

    public async ValueTask HeartbeatAsync(TransactionKeyspace keyspace, string clientId, long expiresAfterMs,
        IReadOnlyList<string> expiredClients, CancellationToken cancellationToken)
    {
        var prefix = $"records.clients.{clientId}.";
        await collections(keyspace).MutateInAsync(ClientRecordKey, specs =>
            {
                specs.Upsert(prefix + "heartbeat_ms", MutationMacro.Cas, createPath: true)
                    .Upsert(prefix + "expires_ms", expiresAfterMs, createPath: true, isXattr: true)
                    .Upsert(prefix + "num_atrs", AtrIds.Count, createPath: true, isXattr: true);
                foreach (var expired in expiredClients.Take(MaxRemovedPerHeartbeat))
                    specs.Remove($"records.clients.{expired}", isXattr: true);
                specs.SetDocRaw(AtrBody);
            },
            new MutateInOptions { CancellationToken = cancellationToken }).ConfigureAwait(false);
    }

    public async ValueTask RemoveClientAsync(TransactionKeyspace keyspace, string clientId, CancellationToken cancellationToken) =>
        await collections(keyspace).MutateInAsync(ClientRecordKey, specs => specs.Remove($"records.clients.{clientId}", isXattr: true),
            new MutateInOptions { CancellationToken = cancellationToken }).ConfigureAwait(false);
}
