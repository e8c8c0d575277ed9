using System.Runtime.CompilerServices;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.SubDoc;

namespace Tern.Client;

/// <summary>
/// Replica reads: the active copy and every replica's, read at once, as the official SDKs read
/// them when the active node is slow or gone. A replica's copy may lag the active one; results say
/// which they are (<see cref="GetResult.IsActive"/>, <see cref="LookupInResult.IsActive"/>). The
/// replicas are those of the bucket's current cluster map: none on classic clusters, on a bucket
/// with no replicas (ternd's), or before the bucket's first map arrived; then only the active copy
/// is read.
/// </summary>
public sealed partial class Collection
{
    /// <summary>
    /// The first copy of the document to arrive, active or replica;
    /// <see cref="DocumentUnretrievableException"/> when no copy could be read.
    /// </summary>
    public async Task<GetResult> GetAnyReplicaAsync(string key, GetAnyReplicaOptions? options = null) =>
        await FirstAsync(key, ReadCopies(key, options ?? Defaults<GetAnyReplicaOptions>.Value)).ConfigureAwait(false);

    /// <summary>
    /// Every copy of the document that could be read, as each arrives;
    /// <see cref="DocumentUnretrievableException"/> when none could.
    /// </summary>
    public IAsyncEnumerable<GetResult> GetAllReplicasAsync(string key, GetAllReplicasOptions? options = null) =>
        EachAsync(key, ReadCopies(key, options ?? Defaults<GetAllReplicasOptions>.Value));

    /// <summary>
    /// The first copy's answer to a LookupIn, active or replica; a replica is read with the
    /// ReplicaRead flag, which the bucket must list (subdoc.ReplicaRead), else
    /// <see cref="FeatureNotAvailableException"/>.
    /// </summary>
    public async Task<LookupInResult> LookupInAnyReplicaAsync(string key, Action<LookupInSpecBuilder> configureBuilder,
        LookupInAnyReplicaOptions? options = null) =>
        await FirstAsync(key, LookUpCopies(key, configureBuilder, options ?? Defaults<LookupInAnyReplicaOptions>.Value)).ConfigureAwait(false);

    /// <summary>Every copy's answer to a LookupIn, as each arrives (see <see cref="LookupInAnyReplicaAsync"/>).</summary>
    public IAsyncEnumerable<LookupInResult> LookupInAllReplicasAsync(string key, Action<LookupInSpecBuilder> configureBuilder,
        LookupInAllReplicasOptions? options = null) =>
        EachAsync(key, LookUpCopies(key, configureBuilder, options ?? Defaults<LookupInAllReplicasOptions>.Value));

    /// <summary>How many replicas the key's bucket has now: 0 without a cluster map.</summary>
    private int ReplicaCount => _keyspace.Topology?.Map?.ReplicaCount ?? 0;

    private List<Task<GetResult>> ReadCopies(string key, TranscodingOptions options)
    {
        var transcoder = options.Transcoder ?? _options.Transcoder;
        var reads = new List<Task<GetResult>> { Read(Opcode.Get, key, 0, missIsResult: false, options).AsTask() };
        for (var replica = 0; replica < ReplicaCount; replica++)
        {
            var operation = GetOperation.Create(Opcode.GetReplica, key, CollectionId, 0, missIsResult: false, transcoder);
            operation.Replica = replica;
            reads.Add(Send(operation, options).AsTask());
        }
        return reads;
    }

    private List<Task<LookupInResult>> LookUpCopies(string key, Action<LookupInSpecBuilder> configureBuilder, TranscodingOptions options)
    {
        ArgumentNullException.ThrowIfNull(configureBuilder);
        if (_keyspace.Topology?.Map is { } map && !map.HasCapability("subdoc.ReplicaRead"))
            throw new FeatureNotAvailableException(
                $"bucket '{BucketName}' does not support sub-document replica reads (no subdoc.ReplicaRead capability); key '{TernException.Describe(key)}'", key);
        var transcoder = options.Transcoder ?? _options.Transcoder;
        var reads = new List<Task<LookupInResult>>();
        for (var replica = -1; replica < ReplicaCount; replica++)
        {
            var operation = EncodeLookupIn(key, configureBuilder, static (builder, configure) => configure(builder),
                replica < 0 ? SubdocDocFlags.None : SubdocDocFlags.ReplicaRead, transcoder, missIsResult: false);
            operation.Replica = replica;
            reads.Add(Send(operation, options).AsTask());
        }
        return reads;
    }

    /// <summary>The first read to succeed; the others are disposed as they finish.</summary>
    private static async Task<T> FirstAsync<T>(string key, List<Task<T>> reads) where T : IDisposable
    {
        var errors = new List<Exception>();
        while (reads.Count > 0)
        {
            var done = await Task.WhenAny(reads).ConfigureAwait(false);
            reads.Remove(done);
            if (done.IsCompletedSuccessfully)
            {
                DisposeWhenDone(reads);
                return done.Result;
            }
            errors.Add(Unwrapped(done));
        }
        throw new DocumentUnretrievableException(key, errors);
    }

    /// <summary>Each read that succeeds, as it does; the rest are disposed as they finish if the caller stops early.</summary>
    private static async IAsyncEnumerable<T> EachAsync<T>(string key, List<Task<T>> reads,
        [EnumeratorCancellation] CancellationToken cancellationToken = default) where T : IDisposable
    {
        var errors = new List<Exception>();
        var returned = 0;
        try
        {
            while (reads.Count > 0)
            {
                var done = await Task.WhenAny(reads).WaitAsync(cancellationToken).ConfigureAwait(false);
                reads.Remove(done);
                if (!done.IsCompletedSuccessfully)
                {
                    errors.Add(Unwrapped(done));
                    continue;
                }
                returned++;
                yield return done.Result;
            }
        }
        finally
        {
            DisposeWhenDone(reads);
        }
        if (returned == 0)
            throw new DocumentUnretrievableException(key, errors);
    }

    private static Exception Unwrapped(Task task) => task.IsCanceled
        ? new OperationCanceledException("the read was cancelled")
        : task.Exception!.InnerException ?? task.Exception;

    private static void DisposeWhenDone<T>(List<Task<T>> reads) where T : IDisposable
    {
        foreach (var read in reads)
            _ = read.ContinueWith(static done => { if (done.IsCompletedSuccessfully) done.Result.Dispose(); },
                CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
    }
}
