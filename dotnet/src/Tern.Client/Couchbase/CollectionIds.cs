using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Couchbase;

/// <summary>
/// The collection ids of one bucket, looked up with GET_COLLECTION_ID ("scope.collection") and
/// cached; concurrent first uses share one lookup, which runs on the cluster's KV timeout and no
/// caller's token, so one caller giving up (its timeout, its cancellation) fails only that caller.
/// `_default._default` is 0 and never looked up. A lookup that fails is forgotten, so the next use
/// asks again.
/// </summary>
internal sealed class CollectionIds(BucketTopology topology)
{
    private readonly ConcurrentDictionary<string, Lazy<Task<uint>>> _ids = new(StringComparer.Ordinal);

    /// <summary>The collection's id; the caller waits at most <paramref name="timeout"/>, cancellable by its own token.</summary>
    public async Task<uint> ResolveAsync(string scope, string collection, TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (scope == "_default" && collection == "_default")
            return 0;
        var path = $"{scope}.{collection}";
        var entry = _ids.GetOrAdd(path, static (_, state) =>
            new Lazy<Task<uint>>(() => state.self.LookUpAsync(state.scope, state.collection)),
            (self: this, scope, collection));
        var lookup = entry.Value;
        if (!lookup.IsCompleted)
            _ = lookup.ContinueWith(failed =>
                {
                    _ = failed.Exception; // observed here: every waiter may have given up already
                    _ids.TryRemove(new KeyValuePair<string, Lazy<Task<uint>>>(path, entry));
                }, CancellationToken.None,
                TaskContinuationOptions.NotOnRanToCompletion | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        else if (!lookup.IsCompletedSuccessfully)
            _ids.TryRemove(new KeyValuePair<string, Lazy<Task<uint>>>(path, entry));
        return await lookup.WaitAsync(timeout, topology.Options.TimeProvider, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Forgets a cached id (after UnknownCollection), so the next resolve asks the server.</summary>
    public void Forget(string scope, string collection) => _ids.TryRemove($"{scope}.{collection}", out _);

    /// <summary>Forgets the cached ids of every collection of <paramref name="scope"/> (after the scope was dropped).</summary>
    public void ForgetScope(string scope)
    {
        // Names cannot contain '.', so the prefix matches this scope's collections only.
        foreach (var path in _ids.Keys.Where(path => path.StartsWith(scope + ".", StringComparison.Ordinal)))
            _ids.TryRemove(path, out _);
    }

    private async Task<uint> LookUpAsync(string scope, string collection)
    {
        var timeout = topology.Options.KvTimeout;
        var lookup = RawOperation.Create(new RawRequest(Opcode.GetCollectionId, Value: Encoding.UTF8.GetBytes($"{scope}.{collection}")),
            timeout, topology.Options.TimeProvider, CancellationToken.None);
        var answer = await topology.Dispatcher.SendAsync(lookup, timeout, CancellationToken.None).ConfigureAwait(false);
        switch (answer.Status)
        {
            case ResponseStatus.Success when answer.Extras.Length >= 12:
                return BinaryPrimitives.ReadUInt32BigEndian(answer.Extras.AsSpan(8));
            case ResponseStatus.UnknownCollection or ResponseStatus.UnknownScope:
                throw new CollectionNotFoundException(topology.Name, scope, collection);
            default:
                throw new TernException(
                    $"GET_COLLECTION_ID of '{scope}.{collection}' in bucket '{topology.Name}' failed with status 0x{(ushort)answer.Status:x2}");
        }
    }
}
