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
    /// A buffer a large batch grew past this goes back to the pool as soon as it was sent (see
    /// <see cref="Sent"/>), and a small one takes its place, so one burst does not pin it until the
    /// connection's next request, or for its life.
    /// </summary>
    internal const int RetainedMaxSize = 256 * 1024;

    private enum State
    {
        /// <summary>Taking appends.</summary>
        Open,

        /// <summary><see cref="Complete"/> was called: takes drain what was appended, then return empty frames.</summary>
        Completed,

        /// <summary><see cref="Release"/> was called: both buffers are back in the pool.</summary>
        Released,
    }

    private readonly Lock _lock;
    private readonly ArrayPool<byte> _pool;
    // Completed from Execute, on a pool thread: the send loop never resumes inside a writer holding the lock.
    private ManualResetValueTaskSourceCore<bool> _wake;
    private byte[] _filling;
    private byte[] _sending;
    private int _length;
    private bool _senderWaiting;
    // Whether the armed wake-up's result was taken: a second GetResult would swap a buffer being sent.
    private bool _wakeTaken;
    private State _state;

    /// <param name="writeLock">The connection's write lock: writers hold it, the send loop takes it to swap buffers.</param>
    /// <param name="pool">Where the buffers come from and go back to; <see cref="ArrayPool{T}.Shared"/> unless a test watches.</param>
    public SendBuffer(Lock writeLock, ArrayPool<byte>? pool = null)
    {
        _lock = writeLock;
        _pool = pool ?? ArrayPool<byte>.Shared;
        _filling = _pool.Rent(InitialSize);
        _sending = _pool.Rent(InitialSize);
    }

    /// <summary>
    /// Appends a finished request with this connection's opaque and the vbucket, and wakes the send
    /// loop if it waits; the caller holds the write lock. Refused once the buffer was completed.
    /// </summary>
    public void Append(RequestBuffer request, uint opaque, ushort vbucket)
    {
        Debug.Assert(_lock.IsHeldByCurrentThread);
        if (_state != State.Open)
            throw new InvalidOperationException($"cannot append a request to a send buffer that is {_state}: the connection has failed");
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
    /// frames, and <see cref="Append"/> is refused; the caller holds the write lock.
    /// </summary>
    public void Complete()
    {
        Debug.Assert(_lock.IsHeldByCurrentThread);
        if (_state == State.Open)
            _state = State.Completed;
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
            if (_length > 0 || _state != State.Open)
                return new(Take());
            // Armed under the lock, so an append that follows the check always sees a waiter to wake.
            _wake.Reset();
            _wakeTaken = false;
            _senderWaiting = true;
            return new(this, _wake.Version);
        }
    }

    /// <summary>
    /// For the send loop, once the frames of its last take have all been sent: a buffer a burst grew
    /// past <see cref="RetainedMaxSize"/> goes back to the pool now, not at the next take, which may
    /// be long in coming.
    /// </summary>
    public void Sent()
    {
        // Only the send loop swaps or replaces _sending (writers fill the other one), so it may look
        // without the lock; the common case costs none.
        if (_sending.Length <= RetainedMaxSize)
            return;
        lock (_lock)
        {
            _pool.Return(_sending);
            _sending = _pool.Rent(InitialSize);
        }
    }

    /// <summary>
    /// For the send loop as it ends (after the connection failed): both buffers go back to the pool,
    /// and nothing can be appended or taken any more. Whatever was still appended is dropped: the
    /// connection failed the operations it carried.
    /// </summary>
    public void Release()
    {
        lock (_lock)
        {
            if (_state == State.Released)
                return;
            _state = State.Released;
            _pool.Return(_filling);
            _pool.Return(_sending);
            _filling = [];
            _sending = [];
            _length = 0;
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
        if (_length == 0)
            return ReadOnlyMemory<byte>.Empty; // completed (or released) and drained
        // The previous take's buffer has been sent (the loop asks again only then): writers fill it next.
        var sent = _sending;
        _sending = _filling;
        var frames = _sending.AsMemory(0, _length);
        _filling = sent;
        _length = 0;
        return frames;
    }

    private void Grow(int needed)
    {
        var grown = _pool.Rent(Math.Max(_length + needed, 2 * _filling.Length));
        _filling.AsSpan(0, _length).CopyTo(grown);
        _pool.Return(_filling);
        _filling = grown;
    }

    ReadOnlyMemory<byte> IValueTaskSource<ReadOnlyMemory<byte>>.GetResult(short token)
    {
        _wake.GetResult(token);
        lock (_lock)
        {
            // The core lets a completed token be read again; a second take would hand the writers
            // the buffer the first one is still sending.
            if (_wakeTaken)
                throw new InvalidOperationException("the send buffer's take was already awaited: a ValueTask can be awaited once");
            _wakeTaken = true;
            return Take();
        }
    }

    ValueTaskSourceStatus IValueTaskSource<ReadOnlyMemory<byte>>.GetStatus(short token) => _wake.GetStatus(token);

    void IValueTaskSource<ReadOnlyMemory<byte>>.OnCompleted(Action<object?> continuation, object? state, short token,
        ValueTaskSourceOnCompletedFlags flags) => _wake.OnCompleted(continuation, state, token, flags);
}
