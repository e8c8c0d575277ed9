using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using Tern.Client.IO;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Per-operation state: the encoded request, its deadline, and the response the read loop captured.
/// Exactly one party completes an operation: whoever removes it from its connection's in-flight
/// table (read loop, deadline sweeper, connection failure, cancellation) or the dispatcher before
/// sending. Completion captures the outcome and queues the operation itself on the thread pool
/// (<see cref="IThreadPoolWorkItem"/>: no closure, no ExecutionContext capture, no allocation);
/// <see cref="Execute"/> then turns it into the caller's result there, so user continuations
/// never run on the socket read loop.
/// </summary>
public abstract class OperationBase : IThreadPoolWorkItem
{
    private CancellationTokenRegistration _cancellation;
    private Activity? _activity;

    public Opcode Opcode { get; protected set; }

    /// <summary>The document key as the caller gave it (empty for key-less commands).</summary>
    public string Key { get; protected set; } = "";

    public RequestBuffer Request { get; } = new();

    /// <summary>Started when the caller started the operation, on the clock its deadline is measured by.</summary>
    public LightweightStopwatch Elapsed { get; private set; }

    /// <summary>When the operation times out: a timestamp of <see cref="Elapsed"/>'s clock.</summary>
    public long DeadlineTimestamp { get; private set; }

    public TimeSpan Timeout { get; private set; }

    public CancellationToken CancellationToken { get; private set; }

    /// <summary>The vbucket to put in the request header (0 without a cluster map).</summary>
    public ushort VBucket { get; set; }

    // Set by the connection that carries the request.
    internal uint Opaque;
    internal long WriteEndOffset;
    internal IO.Connection? Connection;

    // The outcome, captured before the completion is queued.
    protected ResponseStatus Status { get; private set; }
    protected ulong ResponseCas { get; private set; }
    protected Exception? Error { get; private set; }

    /// <summary>The CAS the request carries (0: none).</summary>
    public ulong RequestCas { get; private set; }

    /// <summary>
    /// Begins encoding: validates and writes the key after the extras. The caller may then
    /// append a value through <see cref="Request"/>, and must call <see cref="Seal"/>.
    /// </summary>
    protected void Prepare(Opcode opcode, string key, uint? collectionId, ReadOnlySpan<byte> extras, ulong cas = 0)
    {
        Opcode = opcode;
        Key = key;
        RequestCas = cas;
        Request.Begin(key, collectionId, extras);
    }

    /// <summary>Begins encoding a request whose key is raw bytes (bootstrap commands).</summary>
    protected void Prepare(Opcode opcode, ReadOnlySpan<byte> key, ReadOnlySpan<byte> extras, ulong cas = 0)
    {
        Opcode = opcode;
        RequestCas = cas;
        Request.Begin(key, extras);
    }

    /// <summary>Finishes encoding once the value (if any) is written.</summary>
    public void Seal(Datatype datatype = Datatype.Raw) => Request.Finish(Opcode, datatype, RequestCas);

    /// <summary>
    /// Starts the clock; call once the request is encoded. The deadline is a timestamp of
    /// <paramref name="time"/>, which must be the clock of the connection that will carry the operation.
    /// </summary>
    public void Start(TimeSpan timeout, TimeProvider time, CancellationToken cancellationToken)
    {
        timeout = Timeouts.Cap(timeout);
        Elapsed = LightweightStopwatch.StartNew(time);
        Timeout = timeout;
        DeadlineTimestamp = Elapsed.TimestampAfter(timeout);
        CancellationToken = cancellationToken;
    }

    /// <summary>True for commands that change data: a timeout after sending one is ambiguous.</summary>
    public bool IsMutation => Opcode.IsMutation();

    /// <summary>
    /// Arms cancellation once the operation is in flight. The callback only asks the connection to
    /// remove the operation, so it cannot complete an operation someone else already completed.
    /// </summary>
    internal void RegisterCancellation()
    {
        if (CancellationToken.CanBeCanceled)
            _cancellation = CancellationToken.UnsafeRegister(static state => ((OperationBase)state!).Connection?.Cancel((OperationBase)state!), this);
    }

    /// <summary>
    /// Called by the read loop with the response: copies what the result needs (the receive
    /// buffer is reused once this returns) and queues the completion.
    /// </summary>
    internal void OnResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        Status = (ResponseStatus)header.VBucketOrStatus;
        ResponseCas = header.Cas;
        CaptureResponse(header, body);
        ScheduleCompletion();
    }

    /// <summary>Completes the operation with an error (timeout, connection failure, cancellation).</summary>
    public void Fail(Exception error)
    {
        Error = error;
        ScheduleCompletion();
    }

    /// <summary>Completes the operation with a response status and no body (tests, benchmarks).</summary>
    public void CompleteWith(ResponseStatus status, ulong cas = 0)
    {
        Status = status;
        ResponseCas = cas;
        ScheduleCompletion();
    }

    /// <summary>Queues <see cref="Execute"/> on the global thread-pool queue: never inline.</summary>
    protected void ScheduleCompletion() => ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);

    /// <summary>Runs on a thread-pool thread: delivers the result to the caller.</summary>
    public void Execute()
    {
        _cancellation.Dispose();
        _cancellation = default;
        if (_activity is not null)
            StopActivity(Error ?? (Status == ResponseStatus.Success ? null : new Exception(Status.ToString())));
        Deliver();
    }

    /// <summary>Starts a trace span; called only when the ActivitySource has listeners.</summary>
    internal void StartActivity(string endpoint)
    {
        _activity = Diagnostics.TernMetrics.ActivitySource.StartActivity(Opcode.Name(), ActivityKind.Client);
        _activity?.SetTag("db.system", "memcached");
        _activity?.SetTag("server.address", endpoint);
    }

    internal void StopActivity(Exception? error)
    {
        if (_activity is null)
            return;
        if (error is not null)
            _activity.SetStatus(ActivityStatusCode.Error, error.Message);
        _activity.Dispose();
        _activity = null;
    }

    /// <summary>Copies from the response body what <see cref="Deliver"/> will need.</summary>
    protected virtual void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
    }

    /// <summary>Completes the caller's task from the captured outcome.</summary>
    protected abstract void Deliver();

    /// <summary>Clears per-use state before the operation goes back to its pool.</summary>
    protected virtual void ResetState()
    {
        Request.Reset();
        Key = "";
        VBucket = 0;
        Opaque = 0;
        WriteEndOffset = 0;
        Connection = null;
        Status = ResponseStatus.Success;
        ResponseCas = 0;
        Error = null;
        RequestCas = 0;
        CancellationToken = default;
    }

    /// <summary>The flags in a GET-family response's extras (4 bytes big-endian).</summary>
    protected static uint ReadFlags(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (header.ExtrasLength < 4)
            return 0;
        Span<byte> flags = stackalloc byte[4];
        body.Slice(header.FramingExtrasLength, 4).CopyTo(flags);
        return BinaryPrimitives.ReadUInt32BigEndian(flags);
    }

    /// <summary>The value part of a response body.</summary>
    protected static ReadOnlySequence<byte> ValueOf(in FrameHeader header, in ReadOnlySequence<byte> body) =>
        body.Slice(header.FramingExtrasLength + header.ExtrasLength + header.KeyLength);
}
