namespace Tern.Client.Transactions;

/// <summary>
/// The client record (<c>_txn:client-record</c>, one per collection that holds ATRs): which clients
/// are cleaning that collection's ATRs, so each takes its share (every N-th ATR, N the number of
/// live clients) and a client that stopped heart-beating is dropped. The record's XATTR
/// <c>records.clients.&lt;uuid&gt;</c> is the official SDKs' layout.
/// </summary>
internal interface ICleanupKv
{
    /// <summary>Reads the record and the server's clock; null when the record does not exist.</summary>
    ValueTask<ClientRecord?> GetClientRecordAsync(TransactionKeyspace keyspace, CancellationToken cancellationToken);

    /// <summary>Creates an empty record; <see cref="Exceptions.DocumentExistsException"/> if another client did first.</summary>
    ValueTask CreateClientRecordAsync(TransactionKeyspace keyspace, CancellationToken cancellationToken);

    /// <summary>Writes this client's heartbeat (the server's clock) and removes up to 12 expired clients.</summary>
    ValueTask HeartbeatAsync(TransactionKeyspace keyspace, string clientId, long expiresAfterMs, IReadOnlyList<string> expiredClients,
        CancellationToken cancellationToken);

    /// <summary>Removes this client's entry (a clean stop).</summary>
    ValueTask RemoveClientAsync(TransactionKeyspace keyspace, string clientId, CancellationToken cancellationToken);
}

/// <summary>One client in a client record: its last heartbeat by the server's clock, and how long after it the client counts as gone.</summary>
internal sealed record ClientEntry(string ClientId, long? HeartbeatMs, long ExpiresAfterMs)
{
    public bool HasExpired(long nowMs) => HeartbeatMs is not { } heartbeat || (nowMs > heartbeat && nowMs - heartbeat >= ExpiresAfterMs);
}

/// <summary>A client record as read: the clients, an operator's override that pauses cleanup, and the server's clock.</summary>
internal sealed record ClientRecord(IReadOnlyList<ClientEntry> Clients, bool OverrideEnabled, long OverrideExpiresNs, long NowMs)
{
    public bool OverrideActive => OverrideEnabled && OverrideExpiresNs > NowMs * 1_000_000;
}
