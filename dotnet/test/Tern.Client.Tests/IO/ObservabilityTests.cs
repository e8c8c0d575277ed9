using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.IO;

/// <summary>
/// The Meter and ActivitySource named "Tern.Client" report operations, latency and timeouts. Both
/// are process-wide and other test classes run in parallel, so each test keeps only what is
/// tagged with its own fake server's endpoint.
/// </summary>
public sealed class ObservabilityTests : IDisposable
{
    private readonly MeterListener _meters = new();
    private readonly ActivityListener _activities;
    private readonly ConcurrentQueue<(Instrument Instrument, double Value, string? Op, string? Server)> _measurements = new();
    private readonly ConcurrentQueue<Activity> _stopped = new();

    public ObservabilityTests()
    {
        Instrument[] ours = [TernMetrics.Operations, TernMetrics.Duration, TernMetrics.Timeouts, TernMetrics.Orphans,
            TernMetrics.ConnectionFailures, TernMetrics.ServerDuration];
        _meters.InstrumentPublished = (instrument, listener) =>
        {
            if (ours.Contains(instrument))
                listener.EnableMeasurementEvents(instrument);
        };
        _meters.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value, tags));
        _meters.Start();
        _activities = new ActivityListener
        {
            ShouldListenTo = source => source == TernMetrics.ActivitySource,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllData,
            ActivityStopped = _stopped.Enqueue,
        };
        ActivitySource.AddActivityListener(_activities);
    }

    private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        string? op = null;
        string? server = null;
        foreach (var tag in tags)
        {
            if (tag.Key == "op")
                op = tag.Value as string;
            else if (tag.Key == "server.address")
                server = tag.Value as string;
        }
        _measurements.Enqueue((instrument, value, op, server));
    }

    /// <summary>What was measured against <paramref name="endpoint"/>, as (instrument name, value, op).</summary>
    private List<(string Instrument, double Value, string? Op)> MeasuredOn(string endpoint) =>
        _measurements.Where(m => m.Server == endpoint).Select(m => (m.Instrument.Name, m.Value, m.Op)).ToList();

    [Fact]
    public async Task OperationsAreCountedTimedAndTraced()
    {
        var time = new FakeTimeProvider();
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions { TimeProvider = time });
        var (server, collection) = (fake.Server, fake.Collection);

        var get = collection.GetAsync("observed-key").AsTask();
        var request = (await server.ReceiveAsync(1))[0];
        time.Advance(TimeSpan.FromMilliseconds(7));
        await server.RespondAsync(request, value: "v");
        (await get).Dispose();

        Assert.Equal([("tern.client.operations", 1, "get"), ("tern.client.operation.duration", 7.0, "get")], MeasuredOn(fake.Endpoint));
        var span = Assert.Single(_stopped, a => (string?)a.GetTagItem("server.address") == fake.Endpoint);
        Assert.Equal(("get", ActivityStatusCode.Unset), (span.OperationName, span.Status));
    }

    [Fact]
    public async Task TimeoutsAreCounted()
    {
        var time = new FakeTimeProvider();
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions { KvTimeout = TimeSpan.FromMilliseconds(100), TimeProvider = time });

        var unanswered = fake.Collection.GetAsync("unanswered").AsTask();
        await fake.Server.ReceiveAsync(1);
        time.Advance(TimeSpan.FromMilliseconds(100));
        await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => unanswered);

        Assert.Equal([("tern.client.operations", 1, "get"), ("tern.client.timeouts", 1, "get")], MeasuredOn(fake.Endpoint));
    }

    [Fact]
    public async Task TheServersDurationIsMeasuredAndTaggedOnTheSpan()
    {
        var time = new FakeTimeProvider();
        await using var fake = await FakeCluster.StartAsync(new ClusterOptions { TimeProvider = time });
        byte[] tracing = [0x02, 0x00, 0x40]; // server duration frame: id 0, length 2, encoded 64
        Assert.True(Tern.Client.Protocol.FramingExtras.TryReadServerDuration(tracing, out var duration));

        var get = fake.Collection.GetAsync("traced-key").AsTask();
        await fake.Server.RespondAsync((await fake.Server.ReceiveAsync(1))[0], value: "v", framingExtras: tracing);
        (await get).Dispose();

        Assert.Equal([("tern.server_duration", duration.TotalMicroseconds, "get"), ("tern.client.operations", 1, "get"),
            ("tern.client.operation.duration", 0.0, "get")], MeasuredOn(fake.Endpoint));
        var span = Assert.Single(_stopped, a => (string?)a.GetTagItem("server.address") == fake.Endpoint);
        Assert.Equal(duration.TotalMicroseconds, span.GetTagItem("db.couchbase.server_duration"));
    }

    public void Dispose()
    {
        _meters.Dispose();
        _activities.Dispose();
    }
}
