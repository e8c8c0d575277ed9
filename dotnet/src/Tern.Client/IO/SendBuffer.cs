using System.Buffers;
using System.Diagnostics;
using System.Threading.Tasks.Sources;
using Tern.Client.Operations;

namespace Tern.Client.IO;

/// <summary>
/// The frames a connection has yet to send, copied where the send loop sends them from. Writers
/// append under the connection's write lock, which they hold anyway to take an opaque, so a request
/// costs one copy and no lock of its own (a <c>Pipe</c> took its lock on every advance, 60% of the
/// request path). The send loop takes everything appended since its last take in one piece, for
/// one socket send. Two buffers alternate: writers fill one while the loop sends the other.
/// </summary>
internal sealed class SendBuffer : IValueTaskSource<ReadOnlyMemory<byte>>, IThreadPoolWorkItem
{
    internal const int InitialSize = 16 * 1024;

    /// <summary>
    /// A buffer a large batch grew past this goes back to the pool at the take after it was sent
    /// (and a small one takes its place), so one burst does not pin it for the connection's life.
    /// </summary>
    internal const int RetainedMaxSize = 256 * 1024;

    private readonly object _lock;
    // Completed from Execute, on a pool thread: the send loop never resumes inside a writer holding the lock.
    private ManualResetValueTaskSourceCore<bool> _wake;
    private byte[] _filling = ArrayPool<byte>.Shared.Rent(InitialSize);
    private byte[] _sending = ArrayPool<byte>.Shared.Rent(InitialSize);
    private int _length;
    private bool _senderWaiting;
    private bool _completed;

    /// <param name="writeLock">The connection's write lock: writers hold it, the send loop takes it to swap buffers.</param>
    public SendBuffer(object writeLock) => _lock = writeLock;

    /// <summary>
    /// Appends a finished request with this connection's opaque and the vbucket, and wakes the send
    /// loop if it waits; the caller holds the write lock.
    /// </summary>
    public void Append(RequestBuffer request, uint opaque, ushort vbucket)
    {
        Debug.Assert(Monitor.IsEntered(_lock));
        var length = request.Written.Length;
        if (_filling.Length - _length < length)
            Grow(length);
        request.CopyTo(_filling.AsSpan(_length), opaque, vbucket);
        _length += length;
        if (_senderWaiting)
            WakeSender();
    }

    /// <summary>
    /// Ends the stream: once what was appended has been taken, <see cref="TakeAsync"/> returns empty
    /// frames; the caller holds the write lock.
    /// </summary>
    public void Complete()
    {
        Debug.Assert(Monitor.IsEntered(_lock));
        _completed = true;
        if (_senderWaiting)
            WakeSender();
    }

    /// <summary>
    /// For the one send loop: everything appended since the last take, waiting until there is some;
    /// empty once <see cref="Complete"/> was called and nothing is left. The frames stay valid until
    /// the next call, which hands their buffer back to the writers.
    /// </summary>
    public ValueTask<ReadOnlyMemory<byte>> TakeAsync()
    {
        lock (_lock)
        {
            if (_length > 0 || _completed)
                return new(Take());
            // Armed under the lock, so an append that follows the check always sees a waiter to wake.
            _wake.Reset();
            _senderWaiting = true;
            return new(this, _wake.Version);
        }
    }

    private void WakeSender()
    {
        _senderWaiting = false;
        // This object is the work item, so a wake-up allocates nothing; the global queue, not the
        // writer's local one, so the send starts on whichever thread is free first.
        ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
    }

    void IThreadPoolWorkItem.Execute() => _wake.SetResult(true);

    private ReadOnlyMemory<byte> Take()
    {
        // The previous take's buffer has been sent (the loop asks again only then): writers fill it next.
        var sent = _sending;
        if (sent.Length > RetainedMaxSize)
        {
            ArrayPool<byte>.Shared.Return(sent);
            sent = ArrayPool<byte>.Shared.Rent(InitialSize);
        }
        _sending = _filling;
        var frames = _sending.AsMemory(0, _length);
        _filling = sent;
        _length = 0;
        return frames;
    }

    private void Grow(int needed)
    {
        var grown = ArrayPool<byte>.Shared.Rent(Math.Max(_length + needed, 2 * _filling.Length));
        _filling.AsSpan(0, _length).CopyTo(grown);
        ArrayPool<byte>.Shared.Return(_filling);
        _filling = grown;
    }

    ReadOnlyMemory<byte> IValueTaskSource<ReadOnlyMemory<byte>>.GetResult(short token)
    {
        _wake.GetResult(token);
        lock (_lock)
            return Take();
    }

    ValueTaskSourceStatus IValueTaskSource<ReadOnlyMemory<byte>>.GetStatus(short token) => _wake.GetStatus(token);

    void IValueTaskSource<ReadOnlyMemory<byte>>.OnCompleted(Action<object?> continuation, object? state, short token,
        ValueTaskSourceOnCompletedFlags flags) => _wake.OnCompleted(continuation, state, token, flags);
}
