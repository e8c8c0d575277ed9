namespace Tern.Client.Tests;

public class MutationStateTests
{
    [Fact]
    public void KeepsTheHighestTokenPerBucketAndVBucket()
    {
        var state = MutationState.From(
            new MutationResult(1, new MutationToken("a", 3, 100, 5)),
            new MutationResult(2, new MutationToken("a", 3, 100, 9)),
            new MutationResult(3, new MutationToken("b", 3, 200, 1)));
        state.Add(new MutationToken("a", 3, 100, 7)); // lower: ignored

        Assert.True(state.TryGet("a", 3, out var token));
        Assert.Equal(9ul, token.SequenceNumber);
        Assert.True(state.TryGet("b", 3, out _));
        Assert.False(state.TryGet("a", 4, out _));
        Assert.Equal(2, state.Count());
        Assert.Equal(2, MutationState.From(state).Count());
    }

    [Fact]
    public void AResultWithoutATokenIsRefused()
    {
        var error = Assert.Throws<ArgumentException>(() => MutationState.From(new MutationResult(1)));
        Assert.Contains("couchbase://", error.Message);
    }
}
