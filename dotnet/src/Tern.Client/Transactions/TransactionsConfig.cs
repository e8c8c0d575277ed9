namespace Tern.Client.Transactions;

/// <summary>
/// How every transaction of a cluster runs, unless its <see cref="TransactionOptions"/> say
/// otherwise (<see cref="ClusterOptions.Transactions"/>). The defaults are the official SDKs'.
/// </summary>
public sealed record TransactionsConfig
{
    /// <summary>The durability of every write a transaction makes: staging, the ATR, commit, cleanup. Majority by default.</summary>
    public DurabilityLevel DurabilityLevel { get; init; } = DurabilityLevel.Majority;

    /// <summary>How long a transaction may run, commit included, before it expires: 15 s by default.</summary>
    public TimeSpan ExpirationTime { get; init; } = TimeSpan.FromSeconds(15);

    /// <summary>
    /// Where the Active Transaction Records and the client record live. Null (the default): the
    /// default collection of the bucket of each transaction's first mutated document.
    /// </summary>
    public TransactionKeyspace? MetadataCollection { get; init; }

    /// <summary>How often the lost-attempt cleanup reads every ATR of each collection it watches: 60 s by default.</summary>
    public TimeSpan CleanupWindow { get; init; } = TimeSpan.FromSeconds(60);

    /// <summary>Whether this process looks for, and finishes, attempts that their clients abandoned (crashed, killed). On by default.</summary>
    public bool CleanupLostAttempts { get; init; } = true;

    /// <summary>Whether this process finishes its own attempts whose commit or rollback stopped half way (when the cluster is disposed, at the latest). On by default.</summary>
    public bool CleanupClientAttempts { get; init; } = true;

    /// <summary>Collections the lost-attempt cleanup watches from the start, beside those transactions have used.</summary>
    public IReadOnlyList<TransactionKeyspace> CleanupCollections { get; init; } = [];

    /// <summary>Tests only: awaited once an attempt's commit is recorded, before it unstages (a crash test stops the process there).</summary>
    internal Func<Task>? AfterCommitPointHook { get; init; }
}

/// <summary>Options of one transaction; anything left null comes from <see cref="TransactionsConfig"/>.</summary>
public sealed record TransactionOptions
{
    /// <summary>The durability of this transaction's writes.</summary>
    public DurabilityLevel? DurabilityLevel { get; init; }

    /// <summary>How long this transaction may run, commit included.</summary>
    public TimeSpan? Timeout { get; init; }

    /// <summary>Where this transaction's ATR goes.</summary>
    public TransactionKeyspace? MetadataCollection { get; init; }
}

/// <summary>A collection named by bucket, scope and collection, as the transaction metadata names them.</summary>
public sealed record TransactionKeyspace(string Bucket, string Scope = "_default", string Collection = "_default")
{
    public override string ToString() => $"{Bucket}.{Scope}.{Collection}";
}

/// <summary>What a transaction that committed reports.</summary>
public sealed record TransactionResult(string TransactionId, bool UnstagingComplete);
