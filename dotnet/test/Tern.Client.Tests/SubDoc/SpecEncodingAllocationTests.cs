using Tern.Client.Operations;
using Tern.Client.Transcoders;

namespace Tern.Client.Tests.SubDoc;

/// <summary>
/// Building and encoding specs costs no heap allocation per spec: builders are reused, specs are
/// structs, paths are encoded straight from their strings into the request buffer, and values are
/// serialized into a reused buffer. Measured on this thread only (deterministic, no other test interferes).
/// </summary>
public class SpecEncodingAllocationTests
{
    private const int Rounds = 1_000;

    [Fact]
    public void LookupSpecsAllocateNothing()
    {
        var request = new RequestBuffer();
        var order = new byte[16];

        var perRound = Measure(() =>
        {
            var builder = LookupInSpecBuilder.Rent("user::1");
            builder.Get("address.city").Exists("name").Count("langs").Get("meta", isXattr: true).GetFull();
            request.Begin("user::1", 8u, default);
            builder.Specs.Encode(request, mutation: false, default, order);
            builder.Return();
        });

        Assert.Equal(0, perRound);
    }

    [Fact]
    public void MutationSpecsAllocateNothingBeyondWhatTheirValuesCost()
    {
        var request = new RequestBuffer();
        var order = new byte[16];

        var perRound = Measure(() =>
        {
            var builder = MutateInSpecBuilder.Rent("user::1", JsonTranscoder.Default);
            builder.Upsert("address.geo.lat", 48.85, createPath: true).ArrayAppend("langs", "de").Increment("n", 5)
                .Upsert("meta.cas", MutationMacro.Cas).Remove("old").Insert("count", 3L);
            request.Begin("user::1", 8u, default);
            builder.Specs.Encode(request, mutation: true, builder.Values, order);
            builder.Return();
        });

        Assert.Equal(0, perRound);
    }

    private static long Measure(Action round)
    {
        for (var i = 0; i < 100; i++)
            round();
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < Rounds; i++)
            round();
        return (GC.GetAllocatedBytesForCurrentThread() - before) / Rounds;
    }
}
