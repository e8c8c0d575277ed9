using System.Text.Json.Nodes;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.Exceptions;
using Tern.Client.Transactions;

namespace Tern.Client.Tests.Transactions.Unit;

/// <summary>
/// The attempt's state machine against a scripted store (<see cref="ScriptedKv"/>) and a fake clock:
/// the transaction expiring at every step, a write that lands but answers ambiguously at every
/// step, and another client's staged change in the way at every step. Before the commit point an
/// expiry rolls back (TransactionExpiredException) and nothing shows; after it the transaction has
/// committed, whatever follows. Ambiguity is resolved as the protocol says, and conflicts wait,
/// retry, and end committed once the other attempt goes. Every case ends with no ATR entry left
/// (the client-attempt cleanup finishes what the attempt could not) and the documents either all
/// changed or all as they were.
/// </summary>
public class AttemptStateMachineTests
{
    private static readonly TransactionKeyspace Keyspace = new("default");
    private static readonly DocId A = new(Keyspace, "a");
    private static readonly DocId B = new(Keyspace, "b");
    private static readonly DocId Gone = new(Keyspace, "gone");
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(15);

    private readonly FakeTimeProvider _time = new(DateTimeOffset.Parse("2026-11-27T12:00:00Z"));
    private readonly ScriptedKv _kv;
    private readonly Tern.Client.Transactions.Transactions _transactions;
    private readonly Collection _collection;

    public AttemptStateMachineTests()
    {
        _kv = new ScriptedKv(_time);
        var options = new ClusterOptions { TimeProvider = new SteppingTime(_time) };
        var config = new TransactionsConfig { ExpirationTime = Timeout, CleanupLostAttempts = false, DurabilityLevel = DurabilityLevel.None };
        _transactions = new Tern.Client.Transactions.Transactions(config, options, _kv, _kv);
        _collection = FakeCollection();
        _kv.Put(A, """{"v":1}""");
        _kv.Put(Gone, """{"v":9}""");
    }

    [Theory]
    [InlineData("Get", 1)]
    [InlineData("Get", 2)]
    [InlineData("AtrPending", 1)]
    [InlineData("Stage", 1)]
    [InlineData("Stage", 2)]
    [InlineData("Stage", 3)]
    public async Task ExpiryBeforeTheCommitPointRollsBack(string step, int occurrence)
    {
        _kv.Before(step, () => _time.Advance(Timeout + TimeSpan.FromMilliseconds(1)), occurrence);

        var error = await Assert.ThrowsAsync<TransactionExpiredException>(() => Run(Transfer));

        await Settle();
        AssertNothingApplied();
        Assert.False(string.IsNullOrEmpty(error.TransactionId));
    }

    // "AtrCommitted": the clock passes the expiry while the commit is being recorded; it is recorded.
    [Theory]
    [InlineData("AtrCommitted", 1)]
    [InlineData("Commit", 1)]
    [InlineData("Commit", 2)]
    [InlineData("Remove", 1)]
    [InlineData("AtrRemove", 1)]
    public async Task ExpiryAfterTheCommitPointStillCommits(string step, int occurrence)
    {
        _kv.Before(step, () => _time.Advance(Timeout + TimeSpan.FromMilliseconds(1)), occurrence);

        await Run(Transfer);

        await Settle();
        AssertTransferred();
    }

    [Theory]
    [InlineData("AtrPending", 1)]
    [InlineData("Stage", 1)]
    [InlineData("Stage", 2)]
    [InlineData("Stage", 3)]
    [InlineData("AtrCommitted", 1)]
    [InlineData("Commit", 1)]
    [InlineData("Commit", 2)]
    [InlineData("Remove", 1)]
    [InlineData("AtrRemove", 1)]
    public async Task AnAmbiguousWriteThatLandedIsResolved(string step, int occurrence)
    {
        _kv.Fail(step, new DurabilityAmbiguousException("k", DurabilityLevel.Majority), applied: true, occurrence);

        var result = await Run(Transfer);

        await Settle();
        AssertTransferred();
        Assert.False(string.IsNullOrEmpty(result.TransactionId));
    }

    [Theory]
    [InlineData("AtrPending", 1)]
    [InlineData("Stage", 1)]
    [InlineData("Stage", 2)]
    [InlineData("Stage", 3)]
    [InlineData("AtrCommitted", 1)]
    [InlineData("Commit", 1)]
    [InlineData("Remove", 1)]
    public async Task AnAmbiguousWriteThatDidNotLandIsResolved(string step, int occurrence)
    {
        _kv.Fail(step, new AmbiguousTimeoutException("timed out", "k"), applied: false, occurrence);

        await Run(Transfer);

        await Settle();
        AssertTransferred();
    }

    [Fact]
    public async Task AnAmbiguousCommitPastTheExpiryIsReportedAsAmbiguous()
    {
        for (var i = 1; i <= 5; i++)
            _kv.Fail("AtrCommitted", new DurabilityAmbiguousException("atr", DurabilityLevel.Majority), applied: false, i);
        _kv.Before("AtrCommitted", () => _time.Advance(Timeout), occurrence: 2);

        await Assert.ThrowsAsync<TransactionCommitAmbiguousException>(() => Run(Transfer));
    }

    [Theory]
    [InlineData("before the read")]
    [InlineData("between the read and the write")]
    public async Task AReplaceWaitsForAnotherAttemptsStagedChange(string when)
    {
        (DocId, string) foreign = default;
        if (when == "before the read")
            foreign = _kv.StageForeign(A, """{"v":100}""");
        else
            _kv.Before("Stage", () => foreign = _kv.StageForeign(A, """{"v":100}"""));
        // The other attempt rolls back once this one has asked about it a few times.
        _kv.Before("GetAtr", () => _kv.RollBackForeign(A, foreign), occurrence: 3);

        await Run(Transfer);

        await Settle();
        AssertTransferred();
    }

    [Theory]
    [InlineData("b")] // an insert meets another attempt's staged insert
    [InlineData("gone")] // a remove meets another attempt's staged replace
    public async Task InsertsAndRemovesWaitForAnotherAttemptsStagedChange(string key)
    {
        var id = new DocId(Keyspace, key);
        var foreign = _kv.StageForeign(id, """{"v":100}""");
        _kv.Before("GetAtr", () => _kv.RollBackForeign(id, foreign), occurrence: 3);

        await Run(Transfer);

        await Settle();
        AssertTransferred();
    }

    [Theory]
    [InlineData("AtrAborted")]
    [InlineData("Unlink")]
    [InlineData("AtrRemove")]
    public async Task ExpiryDuringARollbackStillEndsWithNothingApplied(string step)
    {
        _kv.Before(step, () => _time.Advance(Timeout + TimeSpan.FromMilliseconds(1)));
        var thrown = new InvalidOperationException("no");

        var error = await RunThrowing(thrown);

        Assert.Same(thrown, error.InnerException);
        await Settle();
        AssertNothingApplied();
    }

    [Theory]
    [InlineData("AtrAborted")]
    [InlineData("Unlink")]
    [InlineData("AtrRemove")]
    public async Task AnAmbiguousWriteDuringARollbackIsRetried(string step)
    {
        _kv.Fail(step, new DurabilityAmbiguousException("k", DurabilityLevel.Majority), applied: true);

        await RunThrowing(new InvalidOperationException("no"));

        await Settle();
        AssertNothingApplied();
        Assert.False(_kv.HasLinks(A));
    }

    [Fact]
    public async Task AConflictThatOutlastsTheTransactionExpiresIt()
    {
        _kv.StageForeign(A, """{"v":100}""");

        await Assert.ThrowsAsync<TransactionExpiredException>(() => Run(Transfer));

        await Settle();
        Assert.Equal("""{"v":1}""", _kv.Body(A));
        Assert.Null(_kv.Body(B));
        Assert.Equal("""{"v":9}""", _kv.Body(Gone));
        Assert.All(_kv.Entries(), entry => Assert.StartsWith("foreign-", entry)); // the other attempt's, still PENDING
    }

    [Fact]
    public async Task AnotherAttemptsStagedChangeDoesNotShowUntilItCommits()
    {
        _kv.StageForeign(A, """{"v":100}""");

        await Run(async ctx => Assert.Equal(1, (await ctx.GetAsync(_collection, "a")).ContentAs<JsonObject>()!["v"]!.GetValue<int>()));
    }

    [Fact]
    public async Task AnApplicationErrorRollsBackAndIsTheCause()
    {
        var thrown = new InvalidOperationException("no");

        var error = await RunThrowing(thrown);

        Assert.Same(thrown, error.InnerException);
        await Settle();
        AssertNothingApplied();
        Assert.False(_kv.HasLinks(A));
    }

    [Fact]
    public async Task ATimeoutThatIsNotPositiveIsRefusedBeforeAnythingIsSent()
    {
        var error = await Assert.ThrowsAsync<InvalidArgumentException>(() =>
            _transactions.RunAsync(Transfer, new TransactionOptions { Timeout = TimeSpan.Zero }));

        Assert.Contains("must be more than 0", error.Message);
        Assert.Empty(_kv.Calls);
    }

    /// <summary>Replaces a, inserts b, removes gone.</summary>
    private async Task Transfer(AttemptContext ctx)
    {
        var a = await ctx.GetAsync(_collection, "a");
        await ctx.ReplaceAsync(a, new { v = a.ContentAs<JsonObject>()!["v"]!.GetValue<int>() + 1 });
        await ctx.InsertAsync(_collection, "b", new { v = 3 });
        await ctx.RemoveAsync(await ctx.GetAsync(_collection, "gone"));
    }

    /// <summary>Runs <see cref="Transfer"/> and then throws <paramref name="thrown"/>, as an application that changes its mind.</summary>
    private Task<TransactionFailedException> RunThrowing(Exception thrown) =>
        Assert.ThrowsAsync<TransactionFailedException>(() => Run(async ctx =>
        {
            await Transfer(ctx);
            throw thrown;
        }));

    private void AssertNothingApplied()
    {
        Assert.Equal("""{"v":1}""", _kv.Body(A));
        Assert.Null(_kv.Body(B));
        Assert.Equal("""{"v":9}""", _kv.Body(Gone));
        Assert.Empty(_kv.Entries());
    }

    private void AssertTransferred()
    {
        Assert.Equal("""{"v":2}""", _kv.Body(A));
        Assert.Equal("""{"v":3}""", _kv.Body(B));
        Assert.Null(_kv.Body(Gone));
        Assert.Empty(_kv.Entries());
        Assert.False(_kv.HasLinks(A));
        Assert.False(_kv.HasLinks(B));
    }

    /// <summary>Runs a transaction; its clock moves on only while it waits (back-off, conflict polls).</summary>
    private Task<TransactionResult> Run(Func<AttemptContext, Task> logic) => _transactions.RunAsync(logic);

    /// <summary>Lets the client-attempt cleanup finish what the transaction left.</summary>
    private async Task Settle() => await _transactions.DisposeAsync();

    /// <summary>A collection that only names the keyspace (no node behind it): the scripted store answers every request.</summary>
    private static Collection FakeCollection() =>
        new(new Tern.Client.Couchbase.Keyspace(new Tern.Client.IO.Dispatcher([], new NoNodes(), TimeProvider.System), Keyspace.Bucket),
            new ClusterOptions());

    private sealed class NoNodes : Tern.Client.Locators.IKeyLocator
    {
        public int NodeCount => 0;

        public Tern.Client.Locators.KeyLocation Locate(ReadOnlySpan<byte> key) => new(-1, 0);
    }
}
