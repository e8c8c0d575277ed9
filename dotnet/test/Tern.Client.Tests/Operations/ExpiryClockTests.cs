using System.Buffers.Binary;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Operations;

/// <summary>Every operation that takes an expiry dates one beyond 30 days from the cluster's clock.</summary>
public class ExpiryClockTests
{
    private const uint NowUnixSeconds = 1_772_366_400; // 2026-03-01T12:00:00Z
    private const uint ThirtyOneDaysLater = NowUnixSeconds + 31 * 86_400;

    [Fact]
    public async Task LongExpiriesAreSentAsUnixTimesOnTheClustersClock()
    {
        // The clock never moves, so no operation can time out while the test reads the requests.
        var clock = new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(NowUnixSeconds));
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions { TimeProvider = clock });
        var (server, collection) = (fake.Server, fake.Collection);
        var thirtyOneDays = TimeSpan.FromDays(31);

        var upsert = collection.UpsertAsync("upserted", "v", new UpsertOptions { Expiry = thirtyOneDays }).AsTask();
        var touch = collection.TouchAsync("touched", thirtyOneDays).AsTask();
        var getAndTouch = collection.GetAndTouchAsync("got-and-touched", thirtyOneDays).AsTask();
        var increment = collection.Binary.IncrementAsync("counted", new CounterOptions { Expiry = thirtyOneDays }).AsTask();
        var requests = await server.ReceiveAsync(4);

        Assert.Equal(
            [
                (Opcode.Set, "upserted", ThirtyOneDaysLater),
                (Opcode.Touch, "touched", ThirtyOneDaysLater),
                (Opcode.Gat, "got-and-touched", ThirtyOneDaysLater),
                (Opcode.Increment, "counted", ThirtyOneDaysLater),
            ],
            requests.Select(r => (r.Opcode, r.Key, ExpiryOf(r))));
        foreach (var request in requests)
            await server.RespondAsync(request);
        await upsert;
        await touch;
        (await getAndTouch).Dispose();
        await increment;
    }

    // Each of these requests ends its extras with the expiry (after flags in a store, after delta and
    // initial value in a counter).
    private static uint ExpiryOf(ReceivedRequest request) => BinaryPrimitives.ReadUInt32BigEndian(request.Extras.Span[^4..]);
}
