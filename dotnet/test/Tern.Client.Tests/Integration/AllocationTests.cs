using Tern.Client.Tests.Support;
using Xunit.Abstractions;

namespace Tern.Client.Tests.Integration;

[CollectionDefinition(nameof(AllocationCollection), DisableParallelization = true)]
public sealed class AllocationCollection : ICollectionFixture<MemcachedFixture>;

/// <summary>
/// Heap bytes per Get beyond the value, measured process-wide, so this collection runs alone.
/// Not a timing assertion: allocation counts are deterministic enough to guard the hot path.
/// </summary>
[Collection(nameof(AllocationCollection))]
public sealed class AllocationTests(MemcachedFixture fixture, ITestOutputHelper output)
{
    private const int Operations = 50_000;
    private const int ValueLength = 64;

    [Fact]
    public async Task AGetAllocatesLittleBeyondItsResult()
    {
        var collection = fixture.Collection;
        await collection.UpsertAsync("alloc-key", new byte[ValueLength]);
        // Off xunit's synchronization context, whose Post allocates per await, as an application's would not.
        var perGet = await Task.Run(async () =>
        {
            for (var i = 0; i < 10_000; i++)
                (await collection.GetAsync("alloc-key")).Dispose();
            var before = GC.GetTotalAllocatedBytes(precise: true);
            for (var i = 0; i < Operations; i++)
                (await collection.GetAsync("alloc-key")).Dispose();
            return (GC.GetTotalAllocatedBytes(precise: true) - before) / (double)Operations;
        });

        output.WriteLine($"{perGet:0} bytes allocated per Get of a {ValueLength}-byte value (pooled buffer, disposed)");
        // GetResult is ~64 bytes; the rest of the path (operation, task, buffers) is pooled.
        Assert.True(perGet <= 100, $"{perGet:0} bytes per Get");
    }
}
