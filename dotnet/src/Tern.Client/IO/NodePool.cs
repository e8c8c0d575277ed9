using Microsoft.Extensions.Logging;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Timing;

namespace Tern.Client.IO;

/// <summary>
/// The connections to one node: at least Min kept open (a background loop reconnects with
/// exponential backoff after a failure), up to Max opened while every open one is half full.
/// While the node is unreachable and its backoff has not expired, operations fail at once
/// with <see cref="NodeUnavailableException"/> instead of piling up.
/// </summary>
internal sealed class NodePool : IAsyncDisposable
{
    private readonly string _host;
    private readonly int _port;
    private readonly int _min;
    private readonly int _max;
    private readonly TimeSpan _backoffMin;
    private readonly TimeSpan _backoffMax;
    private readonly ConnectionSettings _settings;
    private readonly SemaphoreSlim _connectGate = new(1, 1);
    private readonly object _listLock = new();
    private readonly CancellationTokenSource _disposed = new();
    private volatile Connection[] _connections = [];
    private TimeSpan _backoff;
    private long _retryAtTimestamp;
    private long _reconnectAtTimestamp;
    private Exception? _lastError;
    private int _maintaining;
    private int _growing;

    public NodePool(string host, int port, int min, int max, TimeSpan backoffMin, TimeSpan backoffMax, ConnectionSettings settings)
    {
        _host = host;
        _port = port;
        _min = Math.Max(1, min);
        _max = Math.Max(_min, max);
        _backoffMin = backoffMin;
        _backoffMax = backoffMax;
        _backoff = backoffMin;
        _settings = settings;
        Endpoint = $"{host}:{port}";
    }

    public string Endpoint { get; }

    public IReadOnlyList<Connection> Connections => _connections;

    private TimeProvider Time => _settings.Time;

    /// <summary>Opens the minimum number of connections; on failure keeps retrying in the background, and throws.</summary>
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        try
        {
            for (var i = 0; i < _min; i++)
                await ConnectAsync(cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            Maintain();
            throw;
        }
    }

    /// <summary>The least busy live connection, or null when none is open. Never blocks.</summary>
    public Connection? TryGetConnection()
    {
        var connections = _connections;
        Connection? best = null;
        foreach (var connection in connections)
        {
            if (connection.IsAlive && (best is null || connection.InFlight < best.InFlight))
                best = connection;
        }
        if (best is not null && connections.Length < _max && best.InFlight > _settings.MaxInFlight / 2)
            Grow();
        return best;
    }

    /// <summary>
    /// A live connection, opening one if needed; fails fast during reconnect backoff, waits for the
    /// scheduled reconnect after a connection died young, and fails with a timeout when no
    /// connection is ready by the operation's deadline (a connect or bootstrap step may hang).
    /// </summary>
    public async ValueTask<Connection> GetConnectionAsync(OperationBase operation)
    {
        while (true)
        {
            if (TryGetConnection() is { } connection)
                return connection;
            ThrowIfDisposed();
            ThrowIfBackingOff(operation.Key);
            var remaining = Time.Until(operation.DeadlineTimestamp);
            if (remaining <= TimeSpan.Zero)
                throw Timeouts.NoConnection(operation, Endpoint);
            // Connecting now would only repeat what just failed (see OnClosed): wait for the reconnect.
            var quiet = Time.Until(Volatile.Read(ref _reconnectAtTimestamp));
            if (quiet > TimeSpan.Zero)
            {
                await Task.Delay(quiet < remaining ? quiet : remaining, Time, operation.CancellationToken).ConfigureAwait(false);
                continue;
            }
            var connecting = ConnectAsync(operation.CancellationToken);
            try
            {
                await connecting.WaitAsync(remaining, Time, operation.CancellationToken).ConfigureAwait(false);
            }
            catch (System.TimeoutException)
            {
                // The attempt goes on in the background; its failure is recorded as backoff.
                _ = connecting.ContinueWith(static t => _ = t.Exception, TaskContinuationOptions.OnlyOnFaulted);
                throw Timeouts.NoConnection(operation, Endpoint);
            }
            catch (OperationCanceledException) when (!operation.CancellationToken.IsCancellationRequested)
            {
                ThrowIfDisposed(); // the attempt was cancelled by the cluster's disposal, not by the caller
                throw;
            }
        }
    }

    private void ThrowIfDisposed()
    {
        if (_disposed.IsCancellationRequested)
            throw new ObjectDisposedException(nameof(Cluster), $"the cluster was disposed: no operation can be sent to {Endpoint}");
    }

    private void ThrowIfBackingOff(string? key)
    {
        var wait = Time.Until(Volatile.Read(ref _retryAtTimestamp));
        if (wait > TimeSpan.Zero)
            throw new NodeUnavailableException(
                $"node {Endpoint} is unavailable ({_lastError?.Message}); next connect attempt in " +
                $"{wait.TotalMilliseconds:0} ms", key, _lastError);
    }

    /// <summary>Opens one connection (one attempt at a time per node); records backoff on failure.</summary>
    private async Task ConnectAsync(CancellationToken cancellationToken)
    {
        var connectionsBefore = _connections;
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _disposed.Token);
        await _connectGate.WaitAsync(linked.Token).ConfigureAwait(false);
        try
        {
            // Someone else connected while we waited for the gate.
            if (!ReferenceEquals(connectionsBefore, _connections) && TryGetConnection() is not null && _connections.Length >= _min)
                return;
            // Someone else failed while we waited: share their outcome rather than each retry at once.
            ThrowIfBackingOff(null);
            Connection connection;
            try
            {
                connection = await Connection.OpenAsync(_host, _port, _settings, linked.Token).ConfigureAwait(false);
            }
            catch (Exception e) when (!linked.IsCancellationRequested)
            {
                _lastError = e;
                Volatile.Write(ref _retryAtTimestamp, Time.TimestampAfter(_backoff));
                _settings.Logger.LogWarning("connecting to {Endpoint} failed ({Reason}); retrying in {Backoff} ms",
                    Endpoint, e.Message, _backoff.TotalMilliseconds);
                _backoff = TimeSpan.FromTicks(Math.Min(_backoff.Ticks * 2, _backoffMax.Ticks));
                Diagnostics.TernMetrics.RecordConnectionFailure(Endpoint);
                throw new NodeUnavailableException($"cannot connect to {Endpoint}: {e.Message}", null, e);
            }
            // The backoff is reset only once a connection has lasted (see OnClosed): a server that
            // accepts and at once closes must not be reconnected to in a tight loop.
            Volatile.Write(ref _retryAtTimestamp, 0);
            lock (_listLock)
                _connections = [.. _connections, connection];
            // After it is listed, so that removal finds it even if it closed during bootstrap.
            connection.WhenClosed(OnClosed);
            if (_disposed.IsCancellationRequested)
                await connection.DisposeAsync().ConfigureAwait(false);
        }
        finally
        {
            _connectGate.Release();
        }
    }

    private void OnClosed(Connection connection)
    {
        lock (_listLock)
            _connections = _connections.Where(c => !ReferenceEquals(c, connection)).ToArray();
        // A connection that lasted proves the node healthy. One that died young delays the background
        // reconnect like a failed connect, without failing operations fast: the node did answer.
        if (Time.GetElapsedTime(connection.OpenedTimestamp) >= _backoffMax)
        {
            _backoff = _backoffMin;
        }
        else
        {
            Volatile.Write(ref _reconnectAtTimestamp, Time.TimestampAfter(_backoff));
            _backoff = TimeSpan.FromTicks(Math.Min(_backoff.Ticks * 2, _backoffMax.Ticks));
        }
        if (!_disposed.IsCancellationRequested)
            Maintain();
    }

    // Counts listed connections, dead or alive: a dead one leaves the list only in OnClosed, which
    // first sets the reconnect's backoff and then calls Maintain. Reconnecting as soon as a
    // connection is seen dead would skip that backoff and let OnClosed double it unseen.
    private bool LacksConnections => !_disposed.IsCancellationRequested && _connections.Length < _min;

    /// <summary>Reconnects in the background, with backoff, until the minimum is open again.</summary>
    private void Maintain()
    {
        if (Interlocked.Exchange(ref _maintaining, 1) == 1)
            return;
        _ = Task.Run(async () =>
        {
            try
            {
                while (LacksConnections)
                {
                    var retryAt = Math.Max(Volatile.Read(ref _retryAtTimestamp), Volatile.Read(ref _reconnectAtTimestamp));
                    var wait = Time.Until(retryAt);
                    if (wait > TimeSpan.Zero)
                    {
                        var backingOff = Task.Delay(wait, Time, _disposed.Token);
                        // Logged once the wait is armed: whoever reads it may move the clock on (a test's fake one).
                        _settings.Logger.LogDebug("reconnecting to {Endpoint} in {Wait} ms", Endpoint, wait.TotalMilliseconds);
                        await backingOff.ConfigureAwait(false);
                    }
                    try
                    {
                        await ConnectAsync(_disposed.Token).ConfigureAwait(false);
                    }
                    catch (Exception) when (!_disposed.IsCancellationRequested)
                    {
                    }
                }
            }
            catch (OperationCanceledException)
            {
            }
            finally
            {
                Volatile.Write(ref _maintaining, 0);
            }
            // A connection that closed after the loop's last check left its reconnect to this loop.
            if (LacksConnections)
                Maintain();
        });
    }

    /// <summary>Adds a connection in the background while the open ones are busy.</summary>
    private void Grow()
    {
        if (Interlocked.Exchange(ref _growing, 1) == 1)
            return;
        _ = Task.Run(async () =>
        {
            try
            {
                if (_connections.Length < _max)
                    await ConnectAsync(_disposed.Token).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                _settings.Logger.LogDebug("growing the pool of {Endpoint} failed: {Reason}", Endpoint, e.Message);
            }
            finally
            {
                Volatile.Write(ref _growing, 0);
            }
        });
    }

    public async ValueTask DisposeAsync()
    {
        _disposed.Cancel();
        foreach (var connection in _connections)
        {
            connection.Closed -= OnClosed;
            await connection.DisposeAsync().ConfigureAwait(false);
        }
        _connections = [];
    }
}
