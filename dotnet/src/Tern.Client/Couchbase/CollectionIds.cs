using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Couchbase;

/// <summary>
/// The collection ids of one bucket, looked up with GET_COLLECTION_ID ("scope.collection") and
/// cached; concurrent first uses share one lookup. `_default._default` is 0 and never looked up.
/// A lookup that fails is forgotten, so the next use asks again.
/// </summary>
internal sealed class CollectionIds(BucketTopology topology)
{
    private readonly ConcurrentDictionary<string, Lazy<Task<uint>>> _ids = new(StringComparer.Ordinal);

    public Task<uint> ResolveAsync(string scope, string collection, TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (scope == "_default" && collection == "_default")
            return Task.FromResult(0u);
        var path = $"{scope}.{collection}";
        var entry = _ids.GetOrAdd(path, static (key, state) =>
            new Lazy<Task<uint>>(() => state.self.LookUpAsync(state.scope, state.collection, state.timeout, state.cancellationToken)),
            (self: this, scope, collection, timeout, cancellationToken));
        var task = entry.Value;
        if (task.IsFaulted || task.IsCanceled)
        {
            _ids.TryRemove(new KeyValuePair<string, Lazy<Task<uint>>>(path, entry));
            return task;
        }
        _ = task.ContinueWith(t => _ids.TryRemove(new KeyValuePair<string, Lazy<Task<uint>>>(path, entry)),
            CancellationToken.None, TaskContinuationOptions.NotOnRanToCompletion | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        return task;
    }

    /// <summary>Forgets a cached id (after UnknownCollection), so the next resolve asks the server.</summary>
    public void Forget(string scope, string collection) => _ids.TryRemove($"{scope}.{collection}", out _);

    private async Task<uint> LookUpAsync(string scope, string collection, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var lookup = RawOperation.Create(new RawRequest(Opcode.GetCollectionId, Value: Encoding.UTF8.GetBytes($"{scope}.{collection}")),
            timeout, topology.Options.TimeProvider, cancellationToken);
        var answer = await topology.Dispatcher.SendAsync(lookup, timeout, cancellationToken).ConfigureAwait(false);
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
