using System.Buffers;
using System.IO.Pipelines;
using System.Net.Security;
using System.Net.Sockets;
using Microsoft.Extensions.Logging;
using Tern.Client.Diagnostics;
using Tern.Client.Exceptions;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Timing;

namespace Tern.Client.IO;

/// <summary>
/// One TCP connection carrying many operations at once, matched to responses by opaque (so
/// responses may come in any order; see <see cref="InFlightTable"/>). Callers copy encoded requests
/// into a <see cref="SendBuffer"/> under the write lock; a send loop takes whatever has accumulated
/// and sends it with one socket send, so under load many requests leave in one syscall. A
/// per-connection tick fails operations past their deadline whether or not the server or the read
/// loop is alive, and probes a silent peer (<see cref="KeepAlive"/>).
/// A failed connection fails everything in flight at once, offering each operation to its
/// <see cref="OperationBase.RetryStep"/> first. Over TLS (couchbases://) the same loops read and
/// write through an <see cref="SslStream"/> instead of the socket; nothing else changes.
/// </summary>
internal sealed class Connection : IKvConnection, IOperationCarrier, IAsyncDisposable
{
    private static long s_nextId;

    private readonly Socket _socket;
    // Null on plain TCP, whose send loop keeps its direct socket sends.
    private readonly SslStream? _tls;
    private readonly ConnectionSettings _settings;
    private readonly SendBuffer _sendBuffer;
    private readonly PipeReader _receiver;
    // A Lock, not a Monitor on an object: taken once per Send, uncontended it costs 6-13 ns less
    // (EncodeRequestToSendBuffer against a Monitor in the same run, docs/performance.md).
    private readonly Lock _writeLock = new();
    private readonly InFlightTable _inFlight;
    private readonly KeepAlive _keepAlive;
    private readonly ITimer _ticker;
    private long _bytesWritten;
    private long _bytesSent;
    private long _sendCalls;
    private long _requests;
    private int _ticking;
    private volatile Exception? _failure;
    private volatile ConnectionFeatures _features = ConnectionFeatures.Classic;
    private Task _sendLoop = Task.CompletedTask;
    private Task _receiveLoop = Task.CompletedTask;

    private Connection(Socket socket, SslStream? tls, string endpoint, ConnectionSettings settings)
    {
        _socket = socket;
        _tls = tls;
        _settings = settings;
        OpenedTimestamp = settings.Time.GetTimestamp();
        Endpoint = endpoint;
        Name = $"{endpoint}#{Interlocked.Increment(ref s_nextId)}";
        _inFlight = new InFlightTable(Name, endpoint, settings, () => Interlocked.Read(ref _bytesSent));
        _keepAlive = new KeepAlive(settings.Time, settings.KeepAliveInterval, settings.KeepAliveTimeout);
        _sendBuffer = new SendBuffer(_writeLock);
        _receiver = PipeReader.Create(tls ?? (Stream)new NetworkStream(socket, ownsSocket: false),
            new StreamPipeReaderOptions(bufferSize: 64 * 1024, minimumReadSize: 4 * 1024, leaveOpen: true));
        using (ExecutionContext.SuppressFlow())
            _ticker = settings.Time.CreateTimer(static state => ((Connection)state!).Tick(), this,
                settings.SweepInterval, settings.SweepInterval);
    }

    public string Endpoint { get; }

    /// <summary>When the connection was opened (a timestamp of <see cref="ConnectionSettings.Time"/>).</summary>
    public long OpenedTimestamp { get; }

    /// <summary>Endpoint plus a process-unique number, for logs.</summary>
    public string Name { get; }

    public bool IsAlive => _failure is null;

    public Exception? Failure => _failure;

    /// <summary>What bootstrap negotiated; <see cref="ConnectionFeatures.Classic"/> until a bootstrap step installs more.</summary>
    public ConnectionFeatures Features
    {
        get => _features;
        set => _features = value ?? throw new ArgumentNullException(nameof(value));
    }

    public ErrorMap ErrorMap => _features.ErrorMap;

    /// <summary>Operations sent and not yet answered, timed out or failed.</summary>
    public int InFlight => _inFlight.Count;

    /// <summary>Callers waiting for an in-flight slot.</summary>
    public int Queued => _inFlight.Queued;

    /// <summary>Socket send calls so far; with <see cref="Requests"/> it shows how well writes batch.</summary>
    public long SendCalls => Interlocked.Read(ref _sendCalls);

    public long Requests => Interlocked.Read(ref _requests);

    /// <summary>The latest keepalive NOOP's round trip (completes when answered or failed); null before the first. For tests.</summary>
    internal Task? KeepAliveProbe { get; private set; }

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

    /// <summary>Whether this connection is encrypted (couchbases://).</summary>
    public bool IsTls => _tls is not null;

    /// <summary>Opens (with the TLS handshake when <see cref="ConnectionSettings.Tls"/> is set), starts and bootstraps a connection.</summary>
    public static async Task<Connection> OpenAsync(string host, int port, ConnectionSettings settings, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        Connection? connection = null;
        try
        {
            using var connectDeadline = new CancellationTokenSource(TimeoutLimit.Cap(settings.ConnectTimeout), settings.Time);
            using var connectTimeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, connectDeadline.Token);
            try
            {
                await socket.ConnectAsync(host, port, connectTimeout.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                throw new System.TimeoutException($"connecting to {host}:{port} took longer than {settings.ConnectTimeout.TotalMilliseconds:0} ms");
            }
            SslStream? tls = null;
            if (settings.Tls is { } connector)
            {
                try
                {
                    tls = await connector.AuthenticateAsync(socket, host, port, connectTimeout.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
                {
                    throw new System.TimeoutException(
                        $"connecting to {host}:{port} with its TLS handshake took longer than {settings.ConnectTimeout.TotalMilliseconds:0} ms");
                }
            }
            connection = new Connection(socket, tls, $"{host}:{port}", settings);
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
    public bool TryAcquireSlot() => _inFlight.TryAcquireSlot();

    /// <summary>Waits for an in-flight slot until the operation's deadline; false when the queue stayed full.</summary>
    public ValueTask<bool> WaitForSlotAsync(OperationBase operation) => _inFlight.WaitForSlotAsync(operation);

    /// <summary>
    /// Sends an operation that holds a slot, as a new attempt (<see cref="OperationBase.BeginAttempt"/>).
    /// It completes through the read loop, the deadline tick, cancellation or connection failure (or
    /// its retry step takes it over); this method never throws for those.
    /// </summary>
    public void Send(OperationBase operation) => Send(new ReadOnlySpan<OperationBase>(in operation));

    /// <summary>Sends a raw request and awaits its response; for bootstrap steps and tests.</summary>
    public async ValueTask<RawResponse> SendAsync(RawRequest request, TimeSpan timeout, CancellationToken cancellationToken = default)
    {
        var operation = RawOperation.Create(request, timeout, _settings.Time, cancellationToken);
        if (!TryAcquireSlot() && !await WaitForSlotAsync(operation).ConfigureAwait(false))
            throw QueueFull(operation);
        Send(operation);
        return await operation.AsValueTask().ConfigureAwait(false);
    }

    /// <summary>
    /// Sends raw requests together: copied into the send buffer under one lock, so they leave in one
    /// socket send. The answers come back in request order, whatever order they arrive
    /// in; the first failure (timeout, cancellation, connection failure) is thrown once all are done.
    /// </summary>
    public async ValueTask<RawResponse[]> SendBatchAsync(IReadOnlyList<RawRequest> requests, TimeSpan timeout,
        CancellationToken cancellationToken = default)
    {
        var operations = new RawOperation[requests.Count];
        for (var i = 0; i < operations.Length; i++)
            operations[i] = RawOperation.Create(requests[i], timeout, _settings.Time, cancellationToken);
        var held = 0;
        try
        {
            for (; held < operations.Length; held++)
            {
                if (!TryAcquireSlot() && !await WaitForSlotAsync(operations[held]).ConfigureAwait(false))
                    throw QueueFull(operations[held]);
            }
        }
        catch
        {
            for (var i = 0; i < held; i++)
                _inFlight.ReleaseSlot();
            throw;
        }
        Send(operations);
        var responses = new RawResponse[operations.Length];
        Exception? firstError = null;
        for (var i = 0; i < operations.Length; i++)
        {
            try
            {
                responses[i] = await operations[i].AsValueTask().ConfigureAwait(false);
            }
            catch (Exception e)
            {
                firstError ??= e;
            }
        }
        if (firstError is not null)
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(firstError);
        return responses;
    }

    /// <summary>
    /// Writes operations that each hold a slot into the send buffer under one lock (which wakes the send
    /// loop if it waits). Operations this connection cannot carry fail here; on a failed connection each is
    /// offered to its retry step, unsent.
    /// </summary>
    internal void Send(ReadOnlySpan<OperationBase> operations)
    {
        foreach (var operation in operations)
        {
            operation.BeginAttempt();
            operation.Attempts++;
            operation.Attempt.Connection = this;
            operation.RegisterCancellation();
        }
        Exception? failure;
        lock (_writeLock)
        {
            failure = _failure;
            if (failure is null)
            {
                foreach (var operation in operations)
                    Write(operation);
            }
        }
        foreach (var operation in operations)
        {
            if (failure is not null)
            {
                _inFlight.ReleaseSlot();
                FailOrHandOver(operation, failure, sent: false);
            }
            else if (operation.CancellationToken.IsCancellationRequested)
            {
                Cancel(operation);
            }
        }
    }

    /// <summary>Enters one operation in the table and copies its request into the send buffer; under the write lock.</summary>
    private void Write(OperationBase operation)
    {
        var request = operation.Request;
        if (request.MissingFeature(_features.Negotiated) is { } missing)
        {
            _inFlight.ReleaseSlot();
            operation.Fail(new FeatureNotAvailableException(
                $"{operation.Opcode.Name()} of key '{TernException.Describe(operation.Key)}' cannot be sent on {Name}: " +
                $"the server did not negotiate {NeededFor(missing)}", operation.Key));
            return;
        }
        _bytesWritten += request.Written.Length;
        operation.Attempt.WriteEndOffset = _bytesWritten;
        var opaque = _inFlight.Add(operation);
        _sendBuffer.Append(request, opaque, operation.VBucket);
        _requests++;
    }

    // What a feature a request requires is, and what needs it: the message of a request failed unsent.
    private static string NeededFor(HelloFeature feature) => feature switch
    {
        HelloFeature.AltRequestSupport => "alt requests (needed for durability / preserve-TTL)",
        HelloFeature.SubdocBinaryXattr =>
            "SubdocBinaryXattr (needed for binary XATTR values and user flags in a sub-document mutation, " +
            "as transactions on binary documents send them: Couchbase Server 7.6 and later)",
        _ => $"HELLO feature {feature} (0x{(ushort)feature:x2})",
    };

    /// <summary>Removes an in-flight operation whose token was cancelled and completes it as cancelled.</summary>
    public void Cancel(OperationBase operation)
    {
        if (!_inFlight.TryRemove(operation))
            return;
        operation.Fail(new OperationCanceledException(
            $"{operation.Opcode.Name()} of key '{TernException.Describe(operation.Key)}' was cancelled", operation.CancellationToken));
    }

    private async Task SendLoopAsync()
    {
        try
        {
            while (true)
            {
                var frames = await _sendBuffer.TakeAsync().ConfigureAwait(false);
                if (frames.IsEmpty)
                    return; // completed by Fail: nothing more will be written
                // Counted before the syscall: a request that may have reached the server must be
                // reported as sent (its timeout is ambiguous), never the other way round.
                Interlocked.Add(ref _bytesSent, frames.Length);
                while (!frames.IsEmpty)
                {
                    // Also before the syscall: whoever sees the bytes arrive sees them counted.
                    Interlocked.Increment(ref _sendCalls);
                    if (_tls is not null)
                    {
                        // One write encrypts it all (in records of up to 16 KiB).
                        await _tls.WriteAsync(frames).ConfigureAwait(false);
                        break;
                    }
                    var sent = await _socket.SendAsync(frames, SocketFlags.None).ConfigureAwait(false);
                    frames = frames[sent..];
                }
                _sendBuffer.Sent();
            }
        }
        catch (Exception e)
        {
            // The operations these frames carried are in flight: Fail fails them, as sent.
            Fail(Explained(e));
        }
        finally
        {
            // After Fail (here or wherever it came from, which completed the buffer): nothing more
            // will be appended, so both buffers go back to the pool.
            _sendBuffer.Release();
        }
    }

    private async Task ReceiveLoopAsync()
    {
        try
        {
            while (true)
            {
                var result = await _receiver.ReadAsync().ConfigureAwait(false);
                // Before dispatching: whoever sees an answer completed sees the read stamped.
                _keepAlive.Received();
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
            Fail(Explained(e));
        }
        finally
        {
            await _receiver.CompleteAsync().ConfigureAwait(false);
        }
    }

    private void Dispatch(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (header.Magic == (byte)Magic.ServerRequest)
        {
            OnServerRequest(header, body);
            return;
        }
        if (header.Magic is not ((byte)Magic.Response or (byte)Magic.AltResponse))
            return; // nothing else is addressed to a client
        if (_inFlight.TakeAnswered(header) is not { } operation)
            return;
        if (operation.IsIntermediate(header))
        {
            operation.OnIntermediateFrame(header, body);
            return;
        }
        if (header.Magic == (byte)Magic.AltResponse)
            operation.ReadServerDuration(header, body, Endpoint);
        if (header.VBucketOrStatus != (ushort)ResponseStatus.Success && operation.RetryStep is { } step && step.OnResponse(operation, header, body))
            return;
        // Before the response is handed over: once completed, the operation may be reused at once.
        TernMetrics.RecordCompletion(operation.Opcode, Endpoint, operation.Elapsed);
        operation.OnResponse(header, body);
    }

    private void OnServerRequest(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (_settings.OnServerRequest is not { } handler)
            return;
        try
        {
            handler(this, ServerRequest.Copy(header, body));
        }
        catch (Exception e)
        {
            // The server's request is advice (a newer map); failing to act on it is no reason to drop the connection.
            _settings.Logger.LogError(e, "handling server request 0x{Opcode:x2} on {Connection} failed", header.Opcode, Name);
        }
    }

    /// <summary>
    /// A TLS session's failure with its innermost reason in the message: SslStream says only "the
    /// decryption operation failed", and the cause (such as the server's alert "unknown ca" for a
    /// client certificate it does not trust, which TLS 1.3 reports after the handshake) sits
    /// three exceptions down.
    /// </summary>
    private Exception Explained(Exception e)
    {
        if (_tls is null || e is not IOException || e.InnerException is null)
            return e;
        var innermost = e;
        while (innermost.InnerException is { } inner)
            innermost = inner;
        return new ConnectionFailedException($"the TLS session with {Endpoint} failed: {innermost.Message}", null, e);
    }

    /// <summary>The periodic tick: keepalive first (a dead peer fails everything at once), then deadlines.</summary>
    private void Tick()
    {
        // Timer callbacks can overlap when one runs long; one tick at a time is enough.
        if (Interlocked.Exchange(ref _ticking, 1) == 1)
            return;
        try
        {
            var now = _settings.Time.GetTimestamp();
            switch (_keepAlive.Check(now))
            {
                case KeepAliveAction.Probe:
                    Probe();
                    break;
                case KeepAliveAction.Dead:
                    Fail(new ConnectionFailedException(
                        $"connection {Name}: no answer to a keepalive NOOP within {_keepAlive.Timeout.TotalMilliseconds:0} ms; " +
                        "the peer is declared dead"));
                    return;
            }
            _inFlight.ExpireDeadlines(now);
        }
        catch (Exception e)
        {
            _settings.Logger.LogError(e, "the periodic tick of {Connection} failed", Name);
        }
        finally
        {
            Volatile.Write(ref _ticking, 0);
        }
    }

    /// <summary>
    /// Sends a keepalive NOOP if a slot is free. When none is, the probe's clock runs anyway: the
    /// operations already in flight are the probe then, since any answer proves the peer alive.
    /// </summary>
    private void Probe()
    {
        if (!TryAcquireSlot())
            return;
        var noop = RawOperation.Create(new RawRequest(Opcode.Noop), _keepAlive.Timeout, _settings.Time, CancellationToken.None);
        Send(noop);
        KeepAliveProbe = AwaitProbeAsync(noop);
    }

    private static async Task AwaitProbeAsync(RawOperation noop)
    {
        try
        {
            await noop.AsValueTask().ConfigureAwait(false);
        }
        catch (Exception)
        {
            // Whether the peer is alive is the keepalive's call (any bytes count), not this answer's.
        }
    }

    internal UnambiguousTimeoutException QueueFull(OperationBase operation) =>
        Timeouts.QueueFull(operation, Endpoint, _settings.MaxInFlight, InFlight, Queued);

    /// <summary>
    /// Fails the connection: every operation in flight is offered to its retry step or fails now, and
    /// new sends are refused (offered to their retry step unsent).
    /// </summary>
    public void Fail(Exception reason)
    {
        lock (_writeLock)
        {
            if (_failure is not null)
                return;
            _failure = reason;
            _sendBuffer.Complete();
        }
        // Closed before the sent bytes are read: the send loop still takes what the buffer holds,
        // and a request it sent after the snapshot would be counted unsent, then resent elsewhere.
        // With the socket gone, whatever the snapshot does not count can no longer leave.
        _socket.Dispose();
        var orphaned = _inFlight.RemoveAll();
        var bytesSent = Interlocked.Read(ref _bytesSent);
        foreach (var operation in orphaned)
            FailOrHandOver(operation, reason, sent: operation.Attempt.WriteEndOffset <= bytesSent);
        _ticker.Dispose();
        if (reason is not ObjectDisposedException)
        {
            TernMetrics.RecordConnectionFailure(Endpoint);
            _settings.Logger.LogWarning("connection {Connection} failed ({Reason}); {Count} operations in flight failed",
                Name, reason.Message, orphaned.Count);
        }
        Closed?.Invoke(this);
    }

    /// <summary>Completes an operation this connection could not carry, unless its retry step takes it over.</summary>
    private void FailOrHandOver(OperationBase operation, Exception reason, bool sent)
    {
        var error = ConnectionError(operation, reason, sent);
        if (operation.RetryStep is { } step && step.OnConnectionFailure(operation, error, sent))
            return;
        operation.Fail(error);
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
        // The socket is gone (Fail disposed it); this frees the TLS session's native state.
        _tls?.Dispose();
    }
}
