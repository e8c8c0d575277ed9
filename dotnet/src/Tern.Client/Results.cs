namespace Tern.Client;

/// <summary>The outcome of a mutation: the document's new CAS.</summary>
public readonly record struct MutationResult(ulong Cas);

/// <summary>The outcome of an increment or decrement: the counter's new value and CAS.</summary>
public readonly record struct CounterResult(ulong Content, ulong Cas);

/// <summary>Whether a document exists, and its CAS when it does.</summary>
public readonly record struct ExistsResult(bool Exists, ulong Cas);
