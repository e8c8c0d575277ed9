using System.Collections.Concurrent;
using System.Threading.Channels;
using Microsoft.Extensions.Logging;

namespace Tern.Client.Transactions;

/// <summary>
/// The two cleanups every SDK runs, so that no attempt stays half done when its client stops:
/// <list type="bullet">
/// <item>Client attempts: an attempt of this process that stopped before its ATR entry was removed
/// (a commit that could not unstage everything, a rollback that failed) is finished at once in the
/// background, and at the latest when <see cref="DisposeAsync"/> runs.</item>
/// <item>Lost attempts: for each collection holding ATRs this process used (or was told to watch), a
/// loop registers this client in the collection's client record, takes its share of the 1024
/// ATRs (every N-th, N the live clients), and reads them spread over the cleanup window, finishing
/// every attempt that has expired by the server's clock, whichever SDK left it.</item>
/// </list>
/// </summary>
internal sealed class TransactionsCleanup : ITransactionCleanup, IAsyncDisposable
{
    private static readonly TimeSpan RetryAfterFailure = TimeSpan.FromSeconds(3);

    private readonly TransactionsConfig _config;
    private readonly ITransactionKv _kv;
    private readonly ICleanupKv _records;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly AttemptCleaner _cleaner;
    private readonly CancellationTokenSource _stopping = new();
    private readonly ConcurrentDictionary<TransactionKeyspace, Task> _watched = new();
    private readonly Channel<(DocId Atr, string AttemptId)> _queue = Channel.CreateUnbounded<(DocId, string)>();
    private readonly Task _clientAttempts;

    public TransactionsCleanup(TransactionsConfig config, ITransactionKv kv, ICleanupKv records, TimeProvider time, ILogger logger)
    {
        if (config.CleanupWindow <= TimeSpan.Zero)
            throw new Exceptions.InvalidArgumentException(
                $"TransactionsConfig.CleanupWindow is {config.CleanupWindow.TotalMilliseconds:0} ms; it must be more than 0");
        _config = config;
        _kv = kv;
        _records = records;
        _time = time;
        _logger = logger;
        _cleaner = new AttemptCleaner(kv, config.DurabilityLevel);
        _clientAttempts = config.CleanupClientAttempts ? Task.Run(CleanClientAttemptsAsync) : Task.CompletedTask;
        foreach (var keyspace in config.CleanupCollections)
            Watch(keyspace);
        if (config.MetadataCollection is { } metadata)
            Watch(metadata);
    }

    /// <summary>This process's id in client records.</summary>
    public string ClientId { get; } = TransactionRun.NewId();

    public void Watch(TransactionKeyspace keyspace)
    {
        if (!_config.CleanupLostAttempts || _stopping.IsCancellationRequested || _watched.ContainsKey(keyspace))
            return;
        lock (_watched)
        {
            if (!_watched.ContainsKey(keyspace))
                _watched[keyspace] = Task.Run(() => CleanLostAttemptsAsync(keyspace));
        }
    }

    public void Queue(DocId atr, string attemptId)
    {
        if (_config.CleanupClientAttempts)
            _queue.Writer.TryWrite((atr, attemptId));
    }

    public async ValueTask DisposeAsync()
    {
        if (_stopping.IsCancellationRequested)
            return;
        _queue.Writer.TryComplete();
        await _clientAttempts.ConfigureAwait(false); // finishes what is queued
        _stopping.Cancel();
        await Task.WhenAll(_watched.Values).ConfigureAwait(false);
        using var removing = new CancellationTokenSource(TimeSpan.FromMilliseconds(500));
        foreach (var keyspace in _watched.Keys)
        {
            try
            {
                await _records.RemoveClientAsync(keyspace, ClientId, removing.Token).ConfigureAwait(false);
            }
            catch (Exception error)
            {
                _logger.LogDebug(error, "transactions cleanup: removing client {Client} from {Keyspace}'s client record failed", ClientId, keyspace);
            }
        }
        _stopping.Dispose();
    }

    private async Task CleanClientAttemptsAsync()
    {
        await foreach (var (atr, attemptId) in _queue.Reader.ReadAllAsync().ConfigureAwait(false))
        {
            try
            {
                var document = await _kv.GetAtrAsync(atr, default).ConfigureAwait(false);
                if (document?.Find(attemptId) is { } entry)
                    await _cleaner.CleanAsync(atr, entry, onlyIfExpired: false, document.NowMs, default).ConfigureAwait(false);
            }
            catch (Exception error)
            {
                // Left to lost-attempt cleanup, of this client or another.
                _logger.LogDebug(error, "transactions cleanup: attempt {Attempt} in {Atr} was not cleaned", attemptId, atr);
            }
        }
    }

    private async Task CleanLostAttemptsAsync(TransactionKeyspace keyspace)
    {
        var stopping = _stopping.Token;
        while (!stopping.IsCancellationRequested)
        {
            try
            {
                var share = await RegisterAsync(keyspace, stopping).ConfigureAwait(false);
                if (share is null)
                {
                    await Task.Delay(_config.CleanupWindow, _time, stopping).ConfigureAwait(false);
                    continue;
                }
                var started = _time.GetTimestamp();
                for (var i = 0; i < share.Count; i++)
                {
                    var before = _time.GetTimestamp();
                    await CleanAtrAsync(new DocId(keyspace, share[i]), stopping).ConfigureAwait(false);
                    // Spread the reads over what is left of the window.
                    var left = _config.CleanupWindow - _time.GetElapsedTime(started);
                    var budget = left / Math.Max(1, share.Count - i);
                    var pause = budget - _time.GetElapsedTime(before);
                    if (pause > TimeSpan.Zero)
                        await Task.Delay(pause, _time, stopping).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                return;
            }
            catch (Exception error)
            {
                _logger.LogDebug(error, "transactions cleanup of {Keyspace} failed; retrying", keyspace);
                try
                {
                    await Task.Delay(RetryAfterFailure, _time, stopping).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }
    }

    /// <summary>Heart-beats in the keyspace's client record; returns the ATRs this client checks, or null while an override pauses cleanup.</summary>
    private async Task<IReadOnlyList<string>?> RegisterAsync(TransactionKeyspace keyspace, CancellationToken stopping)
    {
        var record = await _records.GetClientRecordAsync(keyspace, stopping).ConfigureAwait(false);
        if (record is null)
        {
            try
            {
                await _records.CreateClientRecordAsync(keyspace, stopping).ConfigureAwait(false);
            }
            catch (Exception error) when (ErrorClasses.Of(error) == ErrorClass.DocAlreadyExists)
            {
            }
            record = await _records.GetClientRecordAsync(keyspace, stopping).ConfigureAwait(false) ??
                throw new InvalidOperationException($"the client record of {keyspace} vanished");
        }
        if (record.OverrideActive)
            return null;
        var expired = record.Clients.Where(c => c.ClientId != ClientId && c.HasExpired(record.NowMs)).Select(c => c.ClientId).ToList();
        await _records.HeartbeatAsync(keyspace, ClientId, (long)(_config.CleanupWindow.TotalMilliseconds + 20_000), expired, stopping)
            .ConfigureAwait(false);
        var active = record.Clients.Select(c => c.ClientId).Except(expired).Append(ClientId).Distinct().Order(StringComparer.Ordinal).ToList();
        var index = active.IndexOf(ClientId);
        var share = new List<string>();
        for (var vbucket = index; vbucket < AtrIds.Count; vbucket += active.Count)
            share.Add(AtrIds.ForVBucket(vbucket));
        return share;
    }

    private async Task CleanAtrAsync(DocId atr, CancellationToken stopping)
    {
        AtrDocument? document;
        try
        {
            document = await _kv.GetAtrAsync(atr, stopping).ConfigureAwait(false);
        }
        catch (Exception error) when (error is not OperationCanceledException)
        {
            _logger.LogDebug(error, "transactions cleanup: reading {Atr} failed", atr);
            return;
        }
        if (document is null)
            return;
        foreach (var entry in document.Entries)
        {
            try
            {
                await _cleaner.CleanAsync(atr, entry, onlyIfExpired: true, document.NowMs, stopping).ConfigureAwait(false);
            }
            catch (Exception error) when (error is not OperationCanceledException)
            {
                _logger.LogDebug(error, "transactions cleanup: attempt {Attempt} in {Atr} was left for a later pass", entry.AttemptId, atr);
            }
        }
    }
}
