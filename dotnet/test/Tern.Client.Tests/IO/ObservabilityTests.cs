using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using Tern.Client.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>The Meter and ActivitySource named "Tern.Client" report operations, latency and timeouts.</summary>
public sealed class ObservabilityTests : IDisposable
{
    private readonly MeterListener _meters = new();
    private readonly ActivityListener _activities;
    private readonly ConcurrentBag<(string Instrument, double Value, string? Op)> _measurements = new();
    private readonly ConcurrentBag<Activity> _stopped = new();

    public ObservabilityTests()
    {
        _meters.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == TernMetrics.Name)
                listener.EnableMeasurementEvents(instrument);
        };
        _meters.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.Start();
        _activities = new ActivityListener
        {
            ShouldListenTo = source => source.Name == TernMetrics.Name,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllData,
            ActivityStopped = _stopped.Add,
        };
        ActivitySource.AddActivityListener(_activities);
    }

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        string? op = null;
        foreach (var tag in tags)
        {
            if (tag.Key == "op")
                op = tag.Value as string;
        }
        _measurements.Add((instrument.Name, value, op));
    }

    [Fact]
    public async Task OperationsAreCountedTimedAndTraced()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromSeconds(10));
        var (server, collection) = (fake.Server, fake.Collection);

        var get = collection.GetAsync("observed-key").AsTask();
        await server.RespondAsync((await server.ReceiveAsync(1))[0], value: "v");
        (await get).Dispose();

        Assert.Contains(_measurements, m => m.Instrument == "tern.client.operations" && m.Op == "get");
        Assert.Contains(_measurements, m => m.Instrument == "tern.client.operation.duration" && m.Op == "get" && m.Value >= 0);
        Assert.Contains(_stopped, a => a.OperationName == "get" && (string?)a.GetTagItem("server.address") == $"127.0.0.1:{server.Port}");
    }

    [Fact]
    public async Task TimeoutsAreCounted()
    {
        await using var fake = await FakeCluster.StartAsync(TimeSpan.FromMilliseconds(100));
        var collection = fake.Collection;

        await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => collection.GetAsync("unanswered").AsTask());

        Assert.Contains(_measurements, m => m.Instrument == "tern.client.timeouts" && m.Op == "get");
    }

    public void Dispose()
    {
        _meters.Dispose();
        _activities.Dispose();
    }
}
