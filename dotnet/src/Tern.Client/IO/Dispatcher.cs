using Tern.Client.Diagnostics;
using Tern.Client.Locators;
using Tern.Client.Operations;
using Tern.Client.Timing;

namespace Tern.Client.IO;

/// <summary>
/// Routes encoded operations to a node's connection. The fast path (a live connection with a
/// free slot) is synchronous and allocation-free; otherwise an async path waits for a topology,
/// a connection or a slot, bounded by the operation's deadline. A topology (node pools plus the
/// locator) is swapped whole, so a send sees one consistent pair; operations already in flight
/// finish on their connection. Operations carry <see cref="RetryStep"/>, which may send them again
/// through <see cref="Resend"/>.
/// </summary>
internal sealed class Dispatcher
{
    private static readonly Topology None = new([], new EmptyLocator());

    private readonly TimeProvider _time;
    private volatile Topology _topology;
    private volatile TaskCompletionSource _changed = NewSignal();
    private volatile Exception? _fault;

    public Dispatcher(IReadOnlyList<NodePool> nodes, IKeyLocator locator, TimeProvider time)
    {
        _time = time;
        _topology = nodes.Count == 0 ? None : new Topology(nodes, locator);
    }

    /// <summary>A dispatcher with no topology yet: operations wait (up to their deadline) for <see cref="Install"/>.</summary>
    public Dispatcher(TimeProvider time) : this([], None.Locator, time)
    {
    }

    public IReadOnlyList<NodePool> Nodes => _topology.Nodes;

    /// <summary>Given to every operation sent: decides what a failed attempt does next. Null: nothing is retried.</summary>
    public IRetryStep? RetryStep { get; init; }

    /// <summary>Describes what the dispatcher routes by, for timeout messages ("bucket 'default'").</summary>
    public string Description { get; init; } = "the cluster";

    /// <summary>Routes later operations with a new locator over a new node list; operations in flight are unaffected.</summary>
    public void Install(IReadOnlyList<NodePool> newNodes, IKeyLocator newLocator)
    {
        _topology = new Topology(newNodes, newLocator);
        Interlocked.Exchange(ref _changed, NewSignal()).TrySetResult();
    }

    /// <summary>Makes every waiting and later operation fail with <paramref name="error"/> (e.g. the bucket does not exist).</summary>
    public void Fault(Exception error)
    {
        _fault = error;
        _changed.TrySetResult();
    }

    /// <summary>True once <see cref="Fault"/> was called: nothing will be routed any more.</summary>
    public bool IsFaulted => _fault is not null;

    /// <summary>Completes at the next <see cref="Install"/> or <see cref="Fault"/>.</summary>
    public Task Changed => _changed.Task;

    private sealed record Topology(IReadOnlyList<NodePool> Nodes, IKeyLocator Locator);

    private sealed class EmptyLocator : IKeyLocator
    {
        public int NodeCount => 0;

        public KeyLocation Locate(ReadOnlySpan<byte> key) => new(-1, 0);
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>Where the operation goes: its pinned vbucket's node, a replica of its key's, else its key's.</summary>
    private static KeyLocation Locate(Topology topology, OperationBase operation) =>
        operation.PinnedVBucket >= 0 ? topology.Locator.LocateVBucket(operation.PinnedVBucket)
        : operation.Replica >= 0 ? topology.Locator.LocateReplica(operation.Request.LogicalKey, operation.Replica)
        : topology.Locator.Locate(operation.Request.LogicalKey);

    public ValueTask<TResult> SendAsync<TResult>(Operation<TResult> operation, TimeSpan timeout, CancellationToken cancellationToken)
    {
        operation.Start(timeout, _time, cancellationToken);
        return SendStartedAsync(operation);
    }

    /// <summary>Sends an operation whose clock already runs (<see cref="OperationBase.Start"/> was called).</summary>
    public ValueTask<TResult> SendStartedAsync<TResult>(Operation<TResult> operation)
    {
        var cancellationToken = operation.CancellationToken;
        if (cancellationToken.IsCancellationRequested)
            return ValueTask.FromCanceled<TResult>(cancellationToken);
        operation.RetryStep ??= RetryStep;
        if (TrySendNow(operation))
            return operation.AsValueTask();
        return SendSlowAsync(operation);
    }

    /// <summary>
    /// Sends again an operation whose caller is already waiting (a retry): routed by the current
    /// topology; any failure completes the operation instead of being thrown.
    /// </summary>
    public void Resend(OperationBase operation)
    {
        operation.BeginAttempt();
        if (TrySendNow(operation))
            return;
        _ = ResendSlowAsync(operation);
    }

    private bool TrySendNow(OperationBase operation)
    {
        var topology = _topology;
        var location = Locate(topology, operation);
        if (location.NodeIndex < 0)
            return false;
        operation.VBucket = location.VBucket;
        var node = topology.Nodes[location.NodeIndex];
        if (TernMetrics.ActivitySource.HasListeners())
            operation.StartActivity(node.Endpoint);
        if (node.TryGetConnection() is not { } connection || !connection.TryAcquireSlot())
            return false;
        connection.Send(operation);
        return true;
    }

    private async ValueTask<TResult> SendSlowAsync<TResult>(Operation<TResult> operation)
    {
        try
        {
            await DispatchSlowAsync(operation).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            operation.StopActivity(e);
            throw;
        }
        return await operation.AsValueTask().ConfigureAwait(false);
    }

    private async Task ResendSlowAsync(OperationBase operation)
    {
        try
        {
            await DispatchSlowAsync(operation).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            operation.Fail(e);
        }
    }

    private async ValueTask DispatchSlowAsync(OperationBase operation)
    {
        while (true)
        {
            if (_fault is { } fault)
                throw fault;
            var changed = _changed.Task;
            var topology = _topology;
            var location = Locate(topology, operation);
            operation.VBucket = location.VBucket;
            if (location.NodeIndex < 0)
            {
                // No map yet, or the key's vbucket has no active node: wait for the next map.
                await WaitForTopologyAsync(operation, changed).ConfigureAwait(false);
                continue;
            }
            var node = topology.Nodes[location.NodeIndex];
            Connection connection;
            try
            {
                connection = await node.GetConnectionAsync(operation).ConfigureAwait(false);
            }
            catch (ObjectDisposedException) when (!ReferenceEquals(topology, _topology) && _fault is null)
            {
                continue; // the node left the map while we waited for it: route again
            }
            if (!connection.TryAcquireSlot() && !await connection.WaitForSlotAsync(operation).ConfigureAwait(false))
            {
                operation.CancellationToken.ThrowIfCancellationRequested();
                throw connection.QueueFull(operation);
            }
            connection.Send(operation);
            return;
        }
    }

    private async Task WaitForTopologyAsync(OperationBase operation, Task changed)
    {
        var remaining = _time.Until(operation.DeadlineTimestamp);
        if (remaining <= TimeSpan.Zero)
            throw Timeouts.NoRoute(operation, Description, _topology.Nodes.Count == 0);
        try
        {
            await changed.WaitAsync(remaining, _time, operation.CancellationToken).ConfigureAwait(false);
        }
        catch (System.TimeoutException)
        {
            throw Timeouts.NoRoute(operation, Description, _topology.Nodes.Count == 0);
        }
    }
}
