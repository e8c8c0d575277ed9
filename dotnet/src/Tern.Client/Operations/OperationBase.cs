using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using Tern.Client.Timing;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// Per-operation state: the encoded request, its deadline, and the response the read loop captured.
/// Exactly one party completes an operation: whoever removes it from its connection's in-flight
/// table (read loop, deadline sweeper, connection failure, cancellation) or the dispatcher before
/// sending. After a failed status or a connection failure the remover may instead hand it to its
/// <see cref="RetryStep"/>, which then owns it until it sends it again (a new attempt) or fails it. Completion captures the outcome and queues the operation itself on the thread pool
/// (<see cref="IThreadPoolWorkItem"/>: no closure, no ExecutionContext capture, no allocation);
/// <see cref="Execute"/> then turns it into the caller's result there, so user continuations
/// never run on the socket read loop.
/// </summary>
public abstract class OperationBase : IThreadPoolWorkItem
{
    private CancellationTokenRegistration _cancellation;
    private bool _cancellationArmed;
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

    /// <summary>
    /// The vbucket the operation is addressed to whatever its key (a range scan's requests have
    /// none); -1: routed by its key.
    /// </summary>
    internal int PinnedVBucket { get; set; } = -1;

    /// <summary>Which replica of its key's vbucket the operation reads (from 0); -1: the active copy.</summary>
    internal int Replica { get; set; } = -1;

    /// <summary>
    /// True when the server may answer with several frames: Success frames carry part of the
    /// answer (<see cref="OnIntermediateFrame"/>), and the first frame of another status ends it.
    /// </summary>
    internal bool StreamsFrames { get; init; }

    // Set by the connection that carries the current attempt.
    internal OperationAttempt Attempt;

    /// <summary>How many times the operation was handed to a connection: 1 during its first attempt.</summary>
    internal int Attempts;

    /// <summary>Decides what a failed attempt does next; null: a failure completes the operation.</summary>
    internal IRetryStep? RetryStep { get; set; }

    /// <summary>The bucket, scope and collection the operation addresses (null for bootstrap requests).</summary>
    internal IKeyspaceName? Keyspace { get; set; }

    /// <summary>The retries so far and their reasons; null until the first retry.</summary>
    internal RetryLog? Retries { get; set; }

    /// <summary>The durability the mutation asked for, for the exception when the server cannot meet it.</summary>
    internal DurabilityLevel Durability { get; set; }

    /// <summary>
    /// The time the server says it spent on the last attempt (the Tracing frame of an alt response);
    /// null when the server did not say.
    /// </summary>
    public TimeSpan? ServerDuration { get; private set; }

    // The outcome, captured before the completion is queued.
    protected ResponseStatus Status { get; private set; }
    protected ulong ResponseCas { get; private set; }
    protected Exception? Error { get; private set; }

    /// <summary>The CAS the request carries (0: none).</summary>
    public ulong RequestCas { get; private set; }

    /// <summary>
    /// Begins encoding: validates and writes the key after the extras. The caller may then
    /// append a value through <see cref="Request"/>, and must call <see cref="Seal"/>. Framing
    /// extras (durability, preserve-TTL) make it an alt request, which only a connection that
    /// negotiated alt requests carries.
    /// </summary>
    protected void Prepare(Opcode opcode, string key, uint? collectionId, ReadOnlySpan<byte> extras, ulong cas = 0,
        ReadOnlySpan<byte> framingExtras = default)
    {
        Opcode = opcode;
        Key = key;
        RequestCas = cas;
        Request.Begin(key, collectionId, extras, framingExtras);
    }

    /// <summary>Begins encoding a request whose key is raw bytes (bootstrap commands).</summary>
    protected void Prepare(Opcode opcode, ReadOnlySpan<byte> key, ReadOnlySpan<byte> extras, ulong cas = 0,
        ReadOnlySpan<byte> framingExtras = default)
    {
        Opcode = opcode;
        RequestCas = cas;
        Request.Begin(key, extras, framingExtras);
    }

    /// <summary>Finishes encoding once the value (if any) is written.</summary>
    public void Seal(Datatype datatype = Datatype.Raw) => Request.Finish(Opcode, datatype, RequestCas);

    /// <summary>
    /// Starts the clock; call once the request is encoded. The deadline is a timestamp of
    /// <paramref name="time"/>, which must be the clock of the connection that will carry the operation.
    /// </summary>
    public void Start(TimeSpan timeout, TimeProvider time, CancellationToken cancellationToken)
    {
        timeout = TimeoutLimit.Cap(timeout);
        Elapsed = LightweightStopwatch.StartNew(time);
        Timeout = timeout;
        DeadlineTimestamp = Elapsed.TimestampAfter(timeout);
        CancellationToken = cancellationToken;
    }

    /// <summary>True for commands that change data: a timeout after sending one is ambiguous.</summary>
    public bool IsMutation => Opcode.IsMutation();

    /// <summary>
    /// Clears what the last attempt left (its connection, opaque, server duration) so the operation
    /// can be sent again, on this or another connection. Keeps the request, the deadline, the caller's
    /// token and <see cref="Attempts"/>. Connections call it on every send; calling it before is harmless.
    /// </summary>
    internal void BeginAttempt()
    {
        Attempt = default;
        ServerDuration = null;
    }

    /// <summary>
    /// Arms cancellation once the operation is first in flight; later attempts keep the one registration.
    /// The callback only asks the current attempt's connection to remove the operation, so it cannot
    /// complete an operation someone else already completed, nor one between attempts (the connection
    /// that sends it next sees the token cancelled).
    /// </summary>
    internal void RegisterCancellation()
    {
        if (!CancellationToken.CanBeCanceled || _cancellationArmed)
            return;
        _cancellationArmed = true;
        _cancellation = CancellationToken.UnsafeRegister(static state => ((OperationBase)state!).OnCancelled(), this);
    }

    /// <summary>
    /// The caller's token was cancelled: the connection carrying the operation removes and fails
    /// it; one waiting out a retry's backoff (in no connection's table) fails at once.
    /// </summary>
    private void OnCancelled()
    {
        Attempt.Connection?.Cancel(this);
        if (Retries is { } retries && retries.TryEndWaiting())
        {
            retries.Timer?.Dispose();
            Fail(new OperationCanceledException(
                $"{Opcode.Name()} of key '{Exceptions.TernException.Describe(Key)}' was cancelled while waiting to retry " +
                $"({retries.Describe()})", CancellationToken));
        }
    }

    /// <summary>
    /// Reads the server's duration from an alt response's framing extras, before the response is
    /// captured or handed to <see cref="RetryStep"/>; records it on the span and the
    /// tern.server_duration histogram. Allocates nothing unless a span is being recorded.
    /// </summary>
    internal void ReadServerDuration(in FrameHeader header, in ReadOnlySequence<byte> body, string endpoint)
    {
        int length = header.FramingExtrasLength;
        if (length == 0)
            return;
        var first = body.FirstSpan;
        Span<byte> copy = stackalloc byte[byte.MaxValue];
        scoped ReadOnlySpan<byte> framingExtras;
        if (first.Length >= length)
        {
            framingExtras = first[..length];
        }
        else
        {
            body.Slice(0, length).CopyTo(copy);
            framingExtras = copy[..length];
        }
        if (!FramingExtras.TryReadServerDuration(framingExtras, out var duration))
            return;
        ServerDuration = duration;
        _activity?.SetTag("db.couchbase.server_duration", duration.TotalMicroseconds);
        Diagnostics.TernMetrics.RecordServerDuration(Opcode, endpoint, duration);
    }

    /// <summary>
    /// Called by the read loop with the response: copies what the result needs (the receive
    /// buffer is reused once this returns) and queues the completion.
    /// </summary>
    internal void OnResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        Status = (ResponseStatus)header.VBucketOrStatus;
        ResponseCas = header.Cas;
        try
        {
            CaptureResponse(header, body);
        }
        catch (Exception e)
        {
            // A body the operation cannot take (a corrupt compressed value...) fails this
            // operation only: the stream itself is still in step.
            Error = e;
        }
        ScheduleCompletion();
    }

    /// <summary>Whether <paramref name="header"/> is a frame with more of the answer to follow: the operation stays in flight.</summary>
    internal bool IsIntermediate(in FrameHeader header) =>
        StreamsFrames && header.VBucketOrStatus == (ushort)ResponseStatus.Success;

    /// <summary>
    /// Called by the read loop with a frame that <see cref="IsIntermediate"/>: copies what it needs
    /// (the receive buffer is reused once this returns), and never completes the operation. The
    /// operation may meanwhile have timed out: then what it copies is never read.
    /// </summary>
    internal virtual void OnIntermediateFrame(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
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
        _cancellationArmed = false;
        if (_activity is not null)
            StopActivity(Error ?? (Status == ResponseStatus.Success ? null : new Exception(Status.ToString())));
        Deliver();
    }

    /// <summary>
    /// Starts a trace span; called only when the ActivitySource has listeners. One span covers every
    /// attempt: a span already started is kept.
    /// </summary>
    internal void StartActivity(string endpoint)
    {
        if (_activity is not null)
            return;
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
        PinnedVBucket = -1;
        Replica = -1;
        Attempt = default;
        Attempts = 0;
        RetryStep = null;
        Keyspace = null;
        Retries = null;
        Durability = DurabilityLevel.None;
        ServerDuration = null;
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
