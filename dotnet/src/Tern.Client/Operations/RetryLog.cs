namespace Tern.Client.Operations;

/// <summary>
/// The retries of one operation: how many, and why each happened (error-map names such as
/// "locked" or "etmpfail", or "not_my_vbucket"), for the message of a timeout. Created on the
/// first retry only, so operations that succeed at once allocate none.
/// </summary>
internal sealed class RetryLog
{
    // Reasons in the order they first occurred, with how often each did: a handful at most.
    private readonly List<(string Reason, int Count)> _reasons = new();

    public int Count { get; private set; }

    /// <summary>Set once the collection id was looked up again after UnknownCollection: that is done only once.</summary>
    public bool CollectionRefreshed { get; set; }

    /// <summary>The timer that will send the operation again; disposed when it fires.</summary>
    public ITimer? Timer { get; set; }

    // 1 while the operation waits out a backoff, in no connection's table: then either the timer
    // or a cancellation ends the wait, whichever takes this first.
    private int _waiting;

    public void StartWaiting() => Volatile.Write(ref _waiting, 1);

    /// <summary>True for the one caller that ends the current wait (the timer, or cancellation).</summary>
    public bool TryEndWaiting() => Interlocked.Exchange(ref _waiting, 0) == 1;

    /// <summary>How many retries so far had this reason.</summary>
    public int CountOf(string reason) => _reasons.FirstOrDefault(r => r.Reason == reason).Count;

    public void Add(string reason)
    {
        Count++;
        var index = _reasons.FindIndex(r => r.Reason == reason);
        if (index < 0)
            _reasons.Add((reason, 1));
        else
            _reasons[index] = (reason, _reasons[index].Count + 1);
    }

    /// <summary>"3 retries (not_my_vbucket, locked ×2)": each reason once, in the order it first occurred, with its count.</summary>
    public string Describe()
    {
        var reasons = _reasons.Select(r => r.Count == 1 ? r.Reason : $"{r.Reason} ×{r.Count}");
        return $"{Count} {(Count == 1 ? "retry" : "retries")} ({string.Join(", ", reasons)})";
    }
}
