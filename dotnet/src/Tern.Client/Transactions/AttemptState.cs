namespace Tern.Client.Transactions;

/// <summary>An attempt's state as its ATR entry records it (<c>st</c>). Unknown spellings read as <see cref="Unknown"/>: not committed.</summary>
internal enum AttemptState
{
    NotStarted,
    Pending,
    Aborted,
    Committed,
    Completed,
    RolledBack,
    Unknown,
}

internal static class AttemptStates
{
    public static string Name(AttemptState state) => state switch
    {
        AttemptState.NotStarted => "NOT_STARTED",
        AttemptState.Pending => "PENDING",
        AttemptState.Aborted => "ABORTED",
        AttemptState.Committed => "COMMITTED",
        AttemptState.Completed => "COMPLETED",
        AttemptState.RolledBack => "ROLLED_BACK",
        _ => "UNKNOWN",
    };

    public static AttemptState Parse(string? name) => name switch
    {
        "NOT_STARTED" => AttemptState.NotStarted,
        "PENDING" => AttemptState.Pending,
        "ABORTED" => AttemptState.Aborted,
        "COMMITTED" => AttemptState.Committed,
        "COMPLETED" => AttemptState.Completed,
        "ROLLED_BACK" => AttemptState.RolledBack,
        _ => AttemptState.Unknown,
    };

    /// <summary>Whether a document staged by an attempt in this state shows its staged content to readers.</summary>
    public static bool ShowsStaged(AttemptState state) => state is AttemptState.Committed or AttemptState.Completed;
}
