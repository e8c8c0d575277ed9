namespace Tern.Client;

/// <summary>What a MutateIn does when the document exists or not (the official SDKs' StoreSemantics).</summary>
public enum StoreSemantics : byte
{
    /// <summary>The document must exist (else <see cref="Exceptions.DocumentNotFoundException"/>). The default.</summary>
    Replace = 0,

    /// <summary>The document is created (as an empty JSON object the specs then change) when it is missing.</summary>
    Upsert = 1,

    /// <summary>The document is created; <see cref="Exceptions.DocumentExistsException"/> if it exists.</summary>
    Insert = 2,
}
