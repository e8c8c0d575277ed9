using Tern.Client.Diagnostics;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Timing;

namespace Tern.Client.IO;

/// <summary>
/// One connection's operations in flight, by opaque, and the slots that bound how many there may be.
/// An operation holds a slot from the moment it acquires one until it leaves the table (answered,
/// timed out, cancelled, or failed with the connection), or until the connection gives the slot back
/// for an operation it did not send. Exactly one party removes an operation, and that party completes
/// it. Also remembers what it timed out, so a late answer is reported as an orphan with its key and age.
/// </summary>
internal sealed class InFlightTable
{
    private readonly string _connection;
    private readonly string _endpoint;
    private readonly ConnectionSettings _settings;
    private readonly Func<long> _bytesSent;
    private readonly object _lock = new();
    private readonly Dictionary<uint, OperationBase> _byOpaque = new();
    private readonly SemaphoreSlim _slots;
    private readonly List<uint> _expiredOpaques = new();
    private readonly List<OperationBase> _expired = new();
    private readonly TimedOutOperations _timedOut = new();
    private uint _nextOpaque;
    private int _count;
    private int _queued;

    /// <param name="connection">The connection's name, for orphan reports.</param>
    /// <param name="endpoint">"host:port", for messages and metrics.</param>
    /// <param name="settings">Slots (MaxInFlight), the clock deadlines are timestamps of, and the orphan reporter.</param>
    /// <param name="bytesSent">
    /// Bytes the connection has handed to its socket: a request whose write ended within them may
    /// have reached the server. Read after an operation leaves the table, never before, so that a
    /// request is never reported unsent when it may have been sent.
    /// </param>
    public InFlightTable(string connection, string endpoint, ConnectionSettings settings, Func<long> bytesSent)
    {
        _connection = connection;
        _endpoint = endpoint;
        _settings = settings;
        _bytesSent = bytesSent;
        _slots = new SemaphoreSlim(settings.MaxInFlight);
    }

    /// <summary>Operations in the table.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Callers waiting for a slot.</summary>
    public int Queued => Volatile.Read(ref _queued);

    /// <summary>Takes a slot if one is free right now.</summary>
    public bool TryAcquireSlot() => _slots.Wait(0);

    /// <summary>Gives back a slot whose operation will not enter the table (it was not sent).</summary>
    public void ReleaseSlot() => _slots.Release();

    /// <summary>Waits for a slot until the operation's deadline; false when none came in time.</summary>
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

    /// <summary>Enters an operation that holds a slot; returns the opaque it is now known by.</summary>
    public uint Add(OperationBase operation)
    {
        lock (_lock)
        {
            var opaque = ++_nextOpaque;
            // After 2^32 requests the opaque wraps; skip any still held by a slow operation.
            while (!_byOpaque.TryAdd(opaque, operation))
                opaque = ++_nextOpaque;
            // Under the lock: the deadline sweep removes by it, and may run the moment the lock is free.
            operation.Attempt.Opaque = opaque;
            _count = _byOpaque.Count;
            return opaque;
        }
    }

    /// <summary>
    /// Removes the operation an answer is for and frees its slot; null when no operation waits for
    /// it (it timed out, or the opaque is unknown), and then the answer is reported as an orphan.
    /// A frame with more of the answer to follow (<see cref="OperationBase.IsIntermediate"/>)
    /// returns the operation but leaves it in the table, holding its slot.
    /// </summary>
    public OperationBase? TakeAnswered(in FrameHeader header)
    {
        OperationBase? operation;
        lock (_lock)
        {
            if (_byOpaque.Remove(header.Opaque, out operation))
            {
                if (operation.IsIntermediate(header))
                {
                    // Put back under the same lock: the deadline sweep never finds it missing.
                    _byOpaque[header.Opaque] = operation;
                    return operation;
                }
                _count = _byOpaque.Count;
            }
        }
        if (operation is null)
        {
            ReportOrphan(header);
            return null;
        }
        _slots.Release();
        return operation;
    }

    /// <summary>Removes this very operation (not a later one reusing its opaque) and frees its slot; false if it was not in the table.</summary>
    public bool TryRemove(OperationBase operation)
    {
        lock (_lock)
        {
            var opaque = operation.Attempt.Opaque;
            if (!_byOpaque.TryGetValue(opaque, out var found) || !ReferenceEquals(found, operation))
                return false;
            _byOpaque.Remove(opaque);
            _count = _byOpaque.Count;
        }
        _slots.Release();
        return true;
    }

    /// <summary>
    /// Empties the table for a failed connection, freeing every slot, and wakes one caller queued for
    /// a slot (it fails to send and passes the slot on). Nothing may be added afterwards.
    /// </summary>
    public List<OperationBase> RemoveAll()
    {
        List<OperationBase> removed;
        lock (_lock)
        {
            removed = [.. _byOpaque.Values];
            _byOpaque.Clear();
            _count = 0;
        }
        _slots.Release(removed.Count + 1);
        return removed;
    }

    /// <summary>
    /// Fails every operation past its deadline with a timeout saying whether it was sent and how busy
    /// the connection was, and remembers it for the orphan report. One caller at a time (the
    /// connection's tick).
    /// </summary>
    public void ExpireDeadlines(long now)
    {
        int remaining;
        lock (_lock)
        {
            foreach (var (opaque, operation) in _byOpaque)
            {
                if (operation.DeadlineTimestamp <= now)
                    _expiredOpaques.Add(opaque);
            }
            foreach (var opaque in _expiredOpaques)
            {
                _byOpaque.Remove(opaque, out var operation);
                _expired.Add(operation!);
            }
            _expiredOpaques.Clear();
            _count = remaining = _byOpaque.Count;
        }
        if (_expired.Count == 0)
            return;
        var bytesSent = _bytesSent();
        var time = _settings.Time;
        try
        {
            foreach (var operation in _expired)
            {
                _slots.Release();
                _timedOut.Remember(OrphanRecord.TimedOut(_connection, operation.Opcode.Name(), operation.Key, operation.Attempt.Opaque,
                    operation.Timeout, time.GetElapsedTime(operation.Elapsed.StartTimestamp, now), time));
                TernMetrics.RecordTimeout(operation.Opcode, _endpoint);
                operation.Fail(Timeouts.Expired(operation, _endpoint, sent: operation.Attempt.WriteEndOffset <= bytesSent,
                    remaining + _expired.Count, Queued));
            }
        }
        finally
        {
            _expired.Clear();
        }
    }

    private void ReportOrphan(in FrameHeader header)
    {
        TernMetrics.RecordOrphan(_endpoint);
        var known = _timedOut.Take(header.Opaque, out var record);
        _settings.Orphans.Report(known ? record.Answered() : OrphanRecord.Unknown(_connection, ((Opcode)header.Opcode).Name(), header.Opaque));
    }
}
