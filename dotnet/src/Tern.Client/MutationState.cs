using System.Collections;

namespace Tern.Client;

/// <summary>
/// The mutations a later read must see, as their tokens: per bucket and vbucket, the highest
/// sequence number added. A scan with <see cref="ScanOptions.ConsistentWith"/> waits, per vbucket,
/// until the server has reached it. Tokens come back from mutations over couchbase:// (Tern.Client
/// negotiates MutationSeqno there); a result without one cannot be added. Not thread-safe.
/// </summary>
public sealed class MutationState : IEnumerable<MutationToken>
{
    private readonly Dictionary<(string Bucket, ushort VBucket), MutationToken> _tokens = [];

    public static MutationState From(params MutationResult[] results) => new MutationState().Add(results);

    public static MutationState From(MutationState other) => new MutationState().Add(other);

    /// <summary>Adds each result's token; <see cref="ArgumentException"/> for a result that has none.</summary>
    public MutationState Add(params MutationResult[] results)
    {
        foreach (var result in results)
        {
            Add(result.MutationToken ?? throw new ArgumentException(
                "a mutation result has no mutation token: tokens come only over couchbase:// from a server that sends them",
                nameof(results)));
        }
        return this;
    }

    public MutationState Add(MutationState other)
    {
        foreach (var token in other)
            Add(token);
        return this;
    }

    /// <summary>Adds a token (from a counter or a sub-document mutation); a lower one than the vbucket's is ignored.</summary>
    public MutationState Add(MutationToken token)
    {
        var slot = (token.BucketName, token.VBucketId);
        if (!_tokens.TryGetValue(slot, out var held) || held.SequenceNumber < token.SequenceNumber)
            _tokens[slot] = token;
        return this;
    }

    /// <summary>The highest token of <paramref name="bucket"/>'s <paramref name="vbucket"/>, if any was added.</summary>
    internal bool TryGet(string bucket, ushort vbucket, out MutationToken token) => _tokens.TryGetValue((bucket, vbucket), out token);

    public IEnumerator<MutationToken> GetEnumerator() => _tokens.Values.GetEnumerator();

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
}
