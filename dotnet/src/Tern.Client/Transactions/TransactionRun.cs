using Tern.Client.Transcoders;

namespace Tern.Client.Transactions;

/// <summary>
/// What every attempt of one transaction shares: its id, its clock (started once, so retries
/// spend the same budget), its settings, and where it reports attempts for cleanup. Expiry is
/// measured on the <see cref="TimeProvider"/> the cluster was given, so tests drive it.
/// </summary>
internal sealed class TransactionRun
{
    private readonly long _started;

    public TransactionRun(string id, TimeSpan timeout, DurabilityLevel durability, TransactionKeyspace? metadataCollection,
        ITransactionKv kv, ITransactionCleanup cleanup, ITypeTranscoder transcoder, TimeProvider time, Func<Task>? afterCommitPoint = null)
    {
        AfterCommitPoint = afterCommitPoint;
        Id = id;
        Timeout = timeout;
        Durability = durability;
        MetadataCollection = metadataCollection;
        Kv = kv;
        Cleanup = cleanup;
        Transcoder = transcoder;
        Time = time;
        _started = time.GetTimestamp();
    }

    public string Id { get; }

    public TimeSpan Timeout { get; }

    public DurabilityLevel Durability { get; }

    public TransactionKeyspace? MetadataCollection { get; }

    public ITransactionKv Kv { get; }

    public ITransactionCleanup Cleanup { get; }

    public ITypeTranscoder Transcoder { get; }

    public TimeProvider Time { get; }

    /// <summary>Tests only: see <see cref="TransactionsConfig.AfterCommitPointHook"/>.</summary>
    public Func<Task>? AfterCommitPoint { get; }

    public TimeSpan Elapsed => Time.GetElapsedTime(_started);

    /// <summary>How long the transaction has left; never negative.</summary>
    public TimeSpan Remaining => Elapsed < Timeout ? Timeout - Elapsed : TimeSpan.Zero;

    public bool HasExpired => Elapsed > Timeout;

    /// <summary>A fresh id (transaction, attempt, operation): a lowercase 8-4-4-4-12 GUID, as .NET and Java write them.</summary>
    public static string NewId() => Guid.NewGuid().ToString();

    /// <summary>Waits on the transaction's clock.</summary>
    public Task DelayAsync(TimeSpan delay) => delay <= TimeSpan.Zero ? Task.CompletedTask : Task.Delay(delay, Time);

    /// <summary>Exponential back-off with ±10% jitter: <paramref name="initial"/>·2^<paramref name="retry"/>, capped.</summary>
    public static TimeSpan Backoff(TimeSpan initial, TimeSpan max, int retry)
    {
        var ms = initial.TotalMilliseconds * Math.Pow(2, Math.Min(retry, 16));
        return TimeSpan.FromMilliseconds(Math.Min(ms, max.TotalMilliseconds) * (0.9 + Random.Shared.NextDouble() * 0.2));
    }
}

/// <summary>Where attempts report what cleanup must know: the ATR collections they used, and attempts they left unfinished.</summary>
internal interface ITransactionCleanup
{
    /// <summary>Starts watching a collection's ATRs for lost attempts (once per collection).</summary>
    void Watch(TransactionKeyspace keyspace);

    /// <summary>Hands over an attempt of this process that stopped before its entry was removed.</summary>
    void Queue(DocId atr, string attemptId);
}
