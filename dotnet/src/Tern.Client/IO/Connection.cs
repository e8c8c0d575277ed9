using System.Buffers;
using System.IO.Pipelines;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Tern.Client.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.IO;

/// <summary>
/// One TCP connection carrying many operations at once, matched to responses by opaque (so
/// responses may come in any order). Callers copy encoded requests into a pipe; a send loop
/// drains whatever has accumulated with one socket send, so under load many requests leave in
/// one syscall. A per-connection timer fails operations past their deadline whether or not the
/// server or the read loop is alive. A failed connection fails everything in flight at once.
/// </summary>
internal sealed class Connection : IKvConnection, IAsyncDisposable
{
    private static long s_nextId;

    private readonly Socket _socket;
    private readonly ConnectionSettings _settings;
    private readonly Pipe _sendPipe;
    private readonly PipeReader _receiver;
    private readonly object _writeLock = new();
    private readonly object _inFlightLock = new();
    private readonly Dictionary<uint, OperationBase> _inFlight = new();
    private readonly SemaphoreSlim _slots;
    private readonly ITimer _sweeper;
    private readonly List<OperationBase> _expired = new();
    private readonly TimedOutOperations _timedOut = new();
    private uint _nextOpaque;
    private long _bytesWritten;
    private long _bytesSent;
    private long _sendCalls;
    private long _requests;
    private int _queued;
    private int _sweeping;
    private volatile Exception? _failure;
    private Task _sendLoop = Task.CompletedTask;
    private Task _receiveLoop = Task.CompletedTask;

    private Connection(Socket socket, string endpoint, ConnectionSettings settings)
    {
        _socket = socket;
        _settings = settings;
        OpenedTimestamp = settings.Time.GetTimestamp();
        Endpoint = endpoint;
        Name = $"{endpoint}#{Interlocked.Increment(ref s_nextId)}";
        _slots = new SemaphoreSlim(settings.MaxInFlight);
        _sendPipe = new Pipe(new PipeOptions(
            readerScheduler: new ReusableWorkItemScheduler(),
            writerScheduler: PipeScheduler.Inline,
            pauseWriterThreshold: 0,
            resumeWriterThreshold: 0,
            minimumSegmentSize: 16 * 1024,
            useSynchronizationContext: false));
        _receiver = PipeReader.Create(new NetworkStream(socket, ownsSocket: false),
            new StreamPipeReaderOptions(bufferSize: 64 * 1024, minimumReadSize: 4 * 1024, leaveOpen: true));
        using (ExecutionContext.SuppressFlow())
            _sweeper = settings.Time.CreateTimer(static state => ((Connection)state!).SweepDeadlines(), this,
                settings.SweepInterval, settings.SweepInterval);
    }

    public string Endpoint { get; }

    /// <summary>When the connection was opened (a timestamp of <see cref="ConnectionSettings.Time"/>).</summary>
    public long OpenedTimestamp { get; }

    /// <summary>Endpoint plus a process-unique number, for logs.</summary>
    public string Name { get; }

    public bool IsAlive => _failure is null;

    public Exception? Failure => _failure;

    /// <summary>Operations sent and not yet answered, timed out or failed.</summary>
    public int InFlight => Volatile.Read(ref _inFlightCount);
    private int _inFlightCount;

    /// <summary>Callers waiting for an in-flight slot.</summary>
    public int Queued => Volatile.Read(ref _queued);

    /// <summary>Socket send calls so far; with <see cref="Requests"/> it shows how well writes batch.</summary>
    public long SendCalls => Interlocked.Read(ref _sendCalls);

    public long Requests => Interlocked.Read(ref _requests);

    /// <summary>Raised once when the connection fails or is disposed.</summary>
    public event Action<Connection>? Closed;

    /// <summary>
    /// Subscribes <paramref name="handler"/> to <see cref="Closed"/>, or runs it now if the connection
    /// has already closed: either way it runs exactly once, however the two race.
    /// </summary>
    public void WhenClosed(Action<Connection> handler)
    {
        lock (_writeLock)
        {
            // Fail sets _failure under this lock before it raises Closed, so a handler added here
            // while _failure is null is one Fail will see.
            if (_failure is null)
            {
                Closed += handler;
                return;
            }
        }
        handler(this);
    }

    /// <summary>Opens, starts and bootstraps a connection.</summary>
    public static async Task<Connection> OpenAsync(string host, int port, ConnectionSettings settings, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        Connection? connection = null;
        try
        {
            using var connectDeadline = new CancellationTokenSource(Timeouts.Cap(settings.ConnectTimeout), settings.Time);
            using var connectTimeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, connectDeadline.Token);
            try
            {
                await socket.ConnectAsync(host, port, connectTimeout.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new System.TimeoutException($"connecting to {host}:{port} took longer than {settings.ConnectTimeout.TotalMilliseconds:0} ms");
            }
            connection = new Connection(socket, $"{host}:{port}", settings);
            connection.StartLoops();
            foreach (var initializer in settings.Initializers)
                await initializer.InitializeAsync(connection, cancellationToken).ConfigureAwait(false);
            settings.Logger.LogDebug("connection {Connection} open", connection.Name);
            return connection;
        }
        catch
        {
            if (connection is not null)
                await connection.DisposeAsync().ConfigureAwait(false);
            else
                socket.Dispose();
            throw;
        }
    }

    private void StartLoops()
    {
        _sendLoop = Task.Run(SendLoopAsync);
        _receiveLoop = Task.Run(ReceiveLoopAsync);
    }

    /// <summary>Takes an in-flight slot if one is free right now.</summary>
    public bool TryAcquireSlot() => _slots.Wait(0);

    /// <summary>Waits for an in-flight slot until the operation's deadline; false when the queue stayed full.</summary>
    public async ValueTask<bool> WaitForSlotAsync(OperationBase operation)
    {
        Interlocked.Increment(ref _queued);
        try
        {
            var time = _settings.Time;
            var remaining = time.Until(operation.DeadlineTimestamp);
            if (remaining <= TimeSpan.Zero)
                return false;
            // The deadline is a timer of the connection's clock (SemaphoreSlim's own timeout would
            // run on the wall clock). Only a cancellable caller needs a linked source, one more
            // allocation per queued operation; the rest wait on the deadline's token alone.
            var caller = operation.CancellationToken;
            using (var deadline = new CancellationTokenSource(remaining, time))
            using (var waiting = caller.CanBeCanceled ? CancellationTokenSource.CreateLinkedTokenSource(deadline.Token, caller) : null)
            {
                try
                {
                    await _slots.WaitAsync((waiting ?? deadline).Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    // The exception carries the internal source's token; callers match on theirs.
                    caller.ThrowIfCancellationRequested();
                    return false;
                }
            }
            // A slot freed at the deadline is no use: sending now would only produce an orphan.
            if (time.GetTimestamp() < operation.DeadlineTimestamp)
                return true;
            _slots.Release();
            return false;
        }
        finally
        {
            Interlocked.Decrement(ref _queued);
        }
    }

    /// <summary>
    /// Sends an operation that holds a slot. It completes through the read loop, the deadline
    /// sweeper, cancellation or connection failure; this method never throws for those.
    /// </summary>
    public void Send(OperationBase operation)
    {
        operation.Connection = this;
        operation.RegisterCancellation();
        lock (_writeLock)
        {
            if (_failure is { } failure)
            {
                _slots.Release();
                operation.Fail(ConnectionError(operation, failure, sent: false));
                return;
            }
            var length = operation.Request.Written.Length;
            _bytesWritten += length;
            operation.WriteEndOffset = _bytesWritten;
            var opaque = ++_nextOpaque;
            lock (_inFlightLock)
            {
                // After 2^32 requests the opaque wraps; skip any still held by a slow operation.
                while (!_inFlight.TryAdd(opaque, operation))
                    opaque = ++_nextOpaque;
                operation.Opaque = opaque;
                _inFlightCount = _inFlight.Count;
            }
            var writer = _sendPipe.Writer;
            operation.Request.CopyTo(writer.GetSpan(length), opaque, operation.VBucket);
            writer.Advance(length);
            _requests++;
            // Never pauses (pauseWriterThreshold 0): it only wakes the send loop.
            _ = writer.FlushAsync();
        }
        if (operation.CancellationToken.IsCancellationRequested)
            Cancel(operation);
    }

    /// <summary>Sends a raw request and awaits its response; for bootstrap steps and tests.</summary>
    public async ValueTask<RawResponse> SendAsync(RawRequest request, TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        var operation = RawOperation.Create(request, timeout, _settings.Time, cancellationToken);
        if (!TryAcquireSlot() && !await WaitForSlotAsync(operation).ConfigureAwait(false))
            throw QueueFull(operation);
        Send(operation);
        return await operation.AsValueTask().ConfigureAwait(false);
    }

    /// <summary>Removes an in-flight operation whose token was cancelled and completes it as cancelled.</summary>
    internal void Cancel(OperationBase operation)
    {
        if (!TryRemove(operation))
            return;
        _slots.Release();
        operation.Fail(new OperationCanceledException(
            $"{operation.Opcode.Name()} of key '{TernException.Describe(operation.Key)}' was cancelled", operation.CancellationToken));
    }

    private bool TryRemove(OperationBase operation)
    {
        lock (_inFlightLock)
        {
            if (!_inFlight.TryGetValue(operation.Opaque, out var found) || !ReferenceEquals(found, operation))
                return false;
            _inFlight.Remove(operation.Opaque);
            _inFlightCount = _inFlight.Count;
            return true;
        }
    }

    private async Task SendLoopAsync()
    {
        var reader = _sendPipe.Reader;
        try
        {
            while (true)
            {
                var result = await reader.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                // Counted before the syscall: a request that may have reached the server must be
                // reported as sent (its timeout is ambiguous), never the other way round.
                Interlocked.Add(ref _bytesSent, buffer.Length);
                foreach (var segment in buffer)
                {
                    var remaining = segment;
                    while (!remaining.IsEmpty)
                    {
                        var sent = await _socket.SendAsync(remaining, SocketFlags.None).ConfigureAwait(false);
                        remaining = remaining[sent..];
                        Interlocked.Increment(ref _sendCalls);
                    }
                }
                reader.AdvanceTo(buffer.End);
                if (result.IsCompleted || result.IsCanceled)
                    return;
            }
        }
        catch (Exception e)
        {
            Fail(e);
        }
        finally
        {
            await reader.CompleteAsync().ConfigureAwait(false);
        }
    }

    private async Task ReceiveLoopAsync()
    {
        try
        {
            while (true)
            {
                var result = await _receiver.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                while (true)
                {
                    var decoded = FrameCodec.TryDecode(buffer, out var header, out var body);
                    if (decoded == DecodeResult.NeedMore)
                        break;
                    if (decoded != DecodeResult.Ok)
                        throw new ConnectionFailedException($"protocol error from {Endpoint}: {decoded} in the response stream");
                    Dispatch(header, body);
                    buffer = buffer.Slice(header.FrameSize);
                }
                _receiver.AdvanceTo(buffer.Start, buffer.End);
                if (result.IsCompleted)
                {
                    Fail(new ConnectionFailedException($"connection to {Endpoint} was closed by the server"));
                    return;
                }
            }
        }
        catch (Exception e)
        {
            Fail(e);
        }
        finally
        {
            await _receiver.CompleteAsync().ConfigureAwait(false);
        }
    }

    private void Dispatch(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (header.Magic is not ((byte)Magic.Response or (byte)Magic.AltResponse))
            return; // server-initiated requests need Duplex, which is never negotiated yet
        OperationBase? operation;
        lock (_inFlightLock)
        {
            if (_inFlight.Remove(header.Opaque, out operation))
                _inFlightCount = _inFlight.Count;
        }
        if (operation is null)
        {
            ReportOrphan(header);
            return;
        }
        _slots.Release();
        TernMetrics.RecordCompletion(operation.Opcode, Endpoint, operation.Elapsed);
        operation.OnResponse(header, body);
    }

    private void ReportOrphan(in FrameHeader header)
    {
        TernMetrics.RecordOrphan(Endpoint);
        var known = _timedOut.Take(header.Opaque, out var record);
        _settings.Orphans.Report(known ? record.Answered() : OrphanRecord.Unknown(Name, ((Opcode)header.Opcode).Name(), header.Opaque));
    }

    private void SweepDeadlines()
    {
        // Timer callbacks can overlap when one runs long; one sweep at a time is enough.
        if (Interlocked.Exchange(ref _sweeping, 1) == 1)
            return;
        try
        {
            var now = _settings.Time.GetTimestamp();
            int inFlight;
            lock (_inFlightLock)
            {
                foreach (var (_, operation) in _inFlight)
                {
                    if (operation.DeadlineTimestamp <= now)
                        _expired.Add(operation);
                }
                foreach (var operation in _expired)
                    _inFlight.Remove(operation.Opaque);
                _inFlightCount = inFlight = _inFlight.Count;
            }
            if (_expired.Count == 0)
                return;
            var bytesSent = Interlocked.Read(ref _bytesSent);
            foreach (var operation in _expired)
            {
                _slots.Release();
                _timedOut.Remember(OrphanRecord.TimedOut(Name, operation.Opcode.Name(), operation.Key, operation.Opaque,
                    operation.Timeout, _settings.Time.GetElapsedTime(operation.Elapsed.StartTimestamp, now), _settings.Time));
                TernMetrics.RecordTimeout(operation.Opcode, Endpoint);
                operation.Fail(Timeouts.Expired(operation, Endpoint, sent: operation.WriteEndOffset <= bytesSent, inFlight + _expired.Count, Queued));
            }
            _expired.Clear();
        }
        catch (Exception e)
        {
            _settings.Logger.LogError(e, "deadline sweep on {Connection} failed", Name);
        }
        finally
        {
            Volatile.Write(ref _sweeping, 0);
        }
    }

    internal UnambiguousTimeoutException QueueFull(OperationBase operation) =>
        Timeouts.QueueFull(operation, Endpoint, _settings.MaxInFlight, InFlight, Queued);

    /// <summary>Fails the connection: every operation in flight fails now, new sends fail at once.</summary>
    public void Fail(Exception reason)
    {
        lock (_writeLock)
        {
            if (_failure is not null)
                return;
            _failure = reason;
            _sendPipe.Writer.Complete();
        }
        List<OperationBase> orphaned;
        lock (_inFlightLock)
        {
            orphaned = [.. _inFlight.Values];
            _inFlight.Clear();
            _inFlightCount = 0;
        }
        var bytesSent = Interlocked.Read(ref _bytesSent);
        foreach (var operation in orphaned)
        {
            _slots.Release();
            operation.Fail(ConnectionError(operation, reason, sent: operation.WriteEndOffset <= bytesSent));
        }
        // Wake callers queued for a slot: each fails in Send and passes the slot on.
        _slots.Release();
        _sweeper.Dispose();
        _socket.Dispose();
        if (reason is not ObjectDisposedException)
        {
            TernMetrics.RecordConnectionFailure(Endpoint);
            _settings.Logger.LogWarning("connection {Connection} failed ({Reason}); {Count} operations in flight failed",
                Name, reason.Message, orphaned.Count);
        }
        Closed?.Invoke(this);
    }

    private ConnectionFailedException ConnectionError(OperationBase operation, Exception reason, bool sent) =>
        new($"{operation.Opcode.Name()} of key '{TernException.Describe(operation.Key)}' failed: connection {Name} " +
            $"is down ({reason.Message}); the request was {(!sent ? "not sent" : operation.IsMutation ? "sent, so the change may or may not have been applied" : "sent")}",
            operation.Key, reason);

    public async ValueTask DisposeAsync()
    {
        Fail(new ObjectDisposedException(Name, "the connection was closed by the client"));
        try
        {
            await Task.WhenAll(_sendLoop, _receiveLoop).WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
        }
        catch (Exception e) when (e is System.TimeoutException or OperationCanceledException)
        {
        }
    }
}
