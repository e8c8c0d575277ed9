using System.Runtime.CompilerServices;
using System.Text;
using System.Threading.Channels;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Transcoders;

namespace Tern.Client.Scan;

/// <summary>
/// Runs one <see cref="Collection.ScanAsync"/>: a scan of every vbucket of the collection, each on
/// the node that owns it (RANGE_SCAN_CREATE, then CONTINUE until complete). Up to
/// <see cref="ScanOptions.ConcurrentVBucketScans"/> workers take vbuckets in a shuffled order (so
/// that concurrent scans spread over the nodes) and hand their batches to the caller through a
/// channel of that many batches: a caller that reads slowly holds the workers back, and at most
/// that many scans are open on the servers. A vbucket whose scan is lost (idled out, moved)
/// resumes after the last key it returned, up to <see cref="MaxResumes"/> times. When the caller
/// stops early (break, dispose, an exception), every open scan is cancelled on its server.
/// </summary>
internal sealed class RangeScanRunner
{
    public const int MaxResumes = 3;

    private readonly Keyspace _keyspace;
    private readonly ClusterOptions _clusterOptions;
    private readonly ScanOptions _options;
    private readonly RangeScan? _range;
    private readonly SamplingScan? _sampling;
    private readonly ITypeTranscoder _transcoder;
    private readonly TimeSpan _timeout;
    private readonly ScanRetryStep _retryStep;

    public RangeScanRunner(Keyspace keyspace, ClusterOptions clusterOptions, IScanType scanType, ScanOptions options)
    {
        _keyspace = keyspace;
        _clusterOptions = clusterOptions;
        _options = options;
        (_range, _sampling) = scanType switch
        {
            RangeScan range => (range, (SamplingScan?)null),
            SamplingScan sampling => (null, sampling),
            _ => throw new InvalidArgumentException($"unknown scan type {scanType.GetType().Name}: use RangeScan, PrefixScan or SamplingScan"),
        };
        if (options.ConcurrentVBucketScans is < 1 or > ScanOptions.MaxConcurrentVBucketScans)
            throw new InvalidArgumentException(
                $"ConcurrentVBucketScans is {options.ConcurrentVBucketScans}; it must be from 1 to {ScanOptions.MaxConcurrentVBucketScans}");
        if (keyspace.Topology is null)
            throw new FeatureNotAvailableException("range scans need couchbase:// (a server with collections and vbuckets)");
        _transcoder = options.Transcoder ?? clusterOptions.Transcoder;
        _timeout = options.Timeout ?? ScanOptions.DefaultTimeout;
        _retryStep = new ScanRetryStep(keyspace.Dispatcher.RetryStep!);
    }

    public async IAsyncEnumerable<IScanResult> RunAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        using var cancelled = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _options.CancellationToken);
        var collectionId = await ResolveCollectionAsync(cancelled.Token).ConfigureAwait(false);
        var map = _keyspace.Topology!.Map!;
        if (!map.HasCapability("rangeScan"))
            throw new FeatureNotAvailableException($"bucket '{_keyspace.BucketName}' does not support range scans (no rangeScan capability)");
        var vbuckets = Enumerable.Range(0, map.VBucketCount).Select(vbucket => (ushort)vbucket).ToArray();
        (_sampling is null ? Random.Shared : new Random((int)_sampling.Seed)).Shuffle(vbuckets);

        var concurrency = Math.Min(_options.ConcurrentVBucketScans, vbuckets.Length);
        var batches = Channel.CreateBounded<ScanBatch>(new BoundedChannelOptions(concurrency) { SingleReader = true });
        using var stopping = CancellationTokenSource.CreateLinkedTokenSource(cancelled.Token);
        var shared = new WorkerState(vbuckets, collectionId, batches.Writer, concurrency, cancelled.Token, stopping.Token);
        var workers = new Task[concurrency];
        for (var i = 0; i < concurrency; i++)
            workers[i] = WorkAsync(shared);
        try
        {
            var limit = _sampling?.Limit ?? ulong.MaxValue;
            ulong returned = 0;
            await foreach (var batch in batches.Reader.ReadAllAsync(cancelled.Token).ConfigureAwait(false))
            {
                foreach (var item in batch.Items)
                {
                    yield return item;
                    if (++returned == limit)
                        yield break;
                }
            }
        }
        finally
        {
            await stopping.CancelAsync().ConfigureAwait(false);
            // The workers cancel their open scans on the way out; their errors were the channel's.
            await Task.WhenAll(workers).ContinueWith(static _ => { }, TaskScheduler.Default).ConfigureAwait(false);
        }
    }

    /// <summary>What the workers of one scan share.</summary>
    private sealed class WorkerState(ushort[] vbuckets, uint collectionId, ChannelWriter<ScanBatch> batches, int workers,
        CancellationToken cancelled, CancellationToken stopping)
    {
        public readonly ushort[] VBuckets = vbuckets;
        public readonly uint CollectionId = collectionId;
        public readonly ChannelWriter<ScanBatch> Batches = batches;
        public readonly CancellationToken Cancelled = cancelled;
        public readonly CancellationToken Stopping = stopping;
        public int Next = -1;
        public int Running = workers;
    }

    private async Task WorkAsync(WorkerState state)
    {
        try
        {
            int index;
            while ((index = Interlocked.Increment(ref state.Next)) < state.VBuckets.Length && !state.Stopping.IsCancellationRequested)
                await ScanVBucketAsync(state, state.VBuckets[index]).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (state.Stopping.IsCancellationRequested)
        {
        }
        catch (Exception e)
        {
            state.Batches.TryComplete(e);
        }
        finally
        {
            if (Interlocked.Decrement(ref state.Running) == 0)
                state.Batches.TryComplete();
        }
    }

    private async Task ScanVBucketAsync(WorkerState state, ushort vbucket)
    {
        MutationToken? token = null;
        if (_options.ConsistentWith is { } consistentWith && consistentWith.TryGet(_keyspace.BucketName, vbucket, out var held))
            token = held;
        var request = new ScanRequest(state.CollectionId, _options.IdsOnly, _range?.From, _range?.To, _sampling, token, _timeout);
        byte[]? id = null;
        var complete = false;
        var resumes = 0;
        try
        {
            while (true)
            {
                id ??= await SendAsync(RangeScanCreateOperation.Create(vbucket, request), state.Cancelled).ConfigureAwait(false);
                if (id is null)
                    return; // nothing in range
                ScanBatch batch;
                try
                {
                    batch = await SendAsync(RangeScanContinueOperation.Create(vbucket, id, _options.BatchItemLimit, _options.BatchTimeLimit,
                        _options.BatchByteLimit, _transcoder), state.Cancelled).ConfigureAwait(false);
                }
                catch (Exception e) when (e is ScanLostException or ConnectionFailedException && _sampling is null && resumes++ < MaxResumes)
                {
                    id = null;
                    continue;
                }
                complete = batch.Complete;
                if (batch.Items.Count > 0)
                {
                    // A resumed scan starts after the last key returned, and needs no seqno wait any more.
                    request = request with { From = ScanTerm.Exclusive(batch.Items[^1].Id), ConsistentWith = null };
                    await state.Batches.WriteAsync(batch, state.Stopping).ConfigureAwait(false);
                }
                if (complete)
                    return;
            }
        }
        finally
        {
            if (id is not null && !complete)
                await CancelQuietlyAsync(vbucket, id).ConfigureAwait(false);
        }
    }

    private ValueTask<TResult> SendAsync<TResult>(Operation<TResult> operation, CancellationToken cancellationToken)
    {
        operation.Keyspace = _keyspace;
        operation.RetryStep = _retryStep;
        return _keyspace.Dispatcher.SendAsync(operation, _timeout, cancellationToken);
    }

    /// <summary>Frees a scan the caller no longer reads; a failure leaves it to the server's idle timeout.</summary>
    private async Task CancelQuietlyAsync(ushort vbucket, byte[] id)
    {
        try
        {
            await SendAsync(RangeScanCancelOperation.Create(vbucket, id), CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception)
        {
            // The server cancels it after its idle timeout (60 s by default).
        }
    }

    private async ValueTask<uint> ResolveCollectionAsync(CancellationToken cancellationToken)
    {
        if (_keyspace.IsResolved)
            return _keyspace.Prefix!.Value;
        // Resolving is bounded like a request: by a scan request's timeout.
        var probe = RangeScanCancelOperation.Create(0, new byte[RangeScanContinueOperation.IdLength]);
        probe.Start(_timeout, _clusterOptions.TimeProvider, cancellationToken);
        return await _keyspace.ResolveAsync(probe).ConfigureAwait(false);
    }
}
