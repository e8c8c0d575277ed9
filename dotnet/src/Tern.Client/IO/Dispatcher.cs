using Tern.Client.Diagnostics;
using Tern.Client.Locators;
using Tern.Client.Operations;

namespace Tern.Client.IO;

/// <summary>
/// Routes encoded operations to a node's connection. The fast path (a live connection with a
/// free slot) is synchronous and allocation-free; otherwise an async path waits for a
/// connection or a slot, bounded by the operation's deadline.
/// </summary>
internal sealed class Dispatcher(IReadOnlyList<NodePool> nodes, IKeyLocator locator, TimeProvider time)
{
    // Swapped whole on a topology change (e.g. a new cluster map), so a send sees one consistent pair.
    private volatile Topology _topology = new(nodes, locator);

    public IReadOnlyList<NodePool> Nodes => _topology.Nodes;

    /// <summary>Routes later operations with a new locator over a new node list; operations in flight are unaffected.</summary>
    public void Install(IReadOnlyList<NodePool> newNodes, IKeyLocator newLocator) => _topology = new(newNodes, newLocator);

    private sealed record Topology(IReadOnlyList<NodePool> Nodes, IKeyLocator Locator);

    public ValueTask<TResult> SendAsync<TResult>(Operation<TResult> operation, TimeSpan timeout, CancellationToken cancellationToken)
    {
        operation.Start(timeout, time, cancellationToken);
        if (cancellationToken.IsCancellationRequested)
            return ValueTask.FromCanceled<TResult>(cancellationToken);
        var topology = _topology;
        var location = topology.Locator.Locate(operation.Request.LogicalKey);
        operation.VBucket = location.VBucket;
        var node = topology.Nodes[location.NodeIndex];
        if (TernMetrics.ActivitySource.HasListeners())
            operation.StartActivity(node.Endpoint);
        if (node.TryGetConnection() is { } connection && connection.TryAcquireSlot())
        {
            connection.Send(operation);
            return operation.AsValueTask();
        }
        return SendSlowAsync(operation, node);
    }

    private static async ValueTask<TResult> SendSlowAsync<TResult>(Operation<TResult> operation, NodePool node)
    {
        try
        {
            var connection = await node.GetConnectionAsync(operation).ConfigureAwait(false);
            if (!connection.TryAcquireSlot() && !await connection.WaitForSlotAsync(operation).ConfigureAwait(false))
            {
                operation.CancellationToken.ThrowIfCancellationRequested();
                throw connection.QueueFull(operation);
            }
            connection.Send(operation);
        }
        catch (Exception e)
        {
            operation.StopActivity(e);
            throw;
        }
        return await operation.AsValueTask().ConfigureAwait(false);
    }
}
