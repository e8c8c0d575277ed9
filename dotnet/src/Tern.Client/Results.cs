namespace Tern.Client;

/// <summary>
/// Where a mutation landed: its bucket, vbucket, the vbucket's UUID and the sequence number the
/// mutation got there. Couchbase servers send it when MutationSeqno is negotiated (couchbase://).
/// </summary>
public readonly record struct MutationToken(string BucketName, ushort VBucketId, ulong VBucketUuid, ulong SequenceNumber);

/// <summary>The outcome of a mutation: the document's new CAS, and its mutation token when the server sends one.</summary>
public readonly record struct MutationResult(ulong Cas, MutationToken? MutationToken = null);

/// <summary>The outcome of an increment or decrement: the counter's new value and CAS.</summary>
public readonly record struct CounterResult(ulong Content, ulong Cas, MutationToken? MutationToken = null);

/// <summary>Whether a document exists, and its CAS when it does.</summary>
public readonly record struct ExistsResult(bool Exists, ulong Cas);
