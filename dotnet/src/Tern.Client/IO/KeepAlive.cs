using Tern.Client.Timing;

namespace Tern.Client.IO;

/// <summary>What a connection's keepalive wants done now.</summary>
internal enum KeepAliveAction
{
    None,

    /// <summary>Nothing was received for the interval: send a NOOP; the probe's clock has started.</summary>
    Probe,

    /// <summary>Nothing was received within the timeout of the probe: the peer is dead.</summary>
    Dead,
}

/// <summary>
/// Dead-peer detection for one connection, as timestamps of the connection's clock. The read loop
/// marks every read; the connection's periodic tick asks <see cref="Check"/> what to do. A peer that
/// sent anything since the probe went out is alive: any bytes prove it, not only the NOOP's answer
/// (which matters when the connection is too busy to send a NOOP at all).
/// </summary>
internal sealed class KeepAlive
{
    private readonly TimeProvider _time;
    private readonly long _interval;
    private readonly long _timeout;
    private long _lastReceived;
    private long _probeSent; // the tick's alone, like _probing
    private bool _probing;

    public KeepAlive(TimeProvider time, TimeSpan interval, TimeSpan timeout)
    {
        _time = time;
        Enabled = interval > TimeSpan.Zero;
        // Capped, so that "as long as it takes" (TimeSpan.MaxValue) does not overflow a timestamp.
        _interval = time.ToTimestampTicks(TimeoutLimit.Cap(interval));
        Timeout = TimeoutLimit.Cap(timeout);
        _timeout = time.ToTimestampTicks(Timeout);
        _lastReceived = time.GetTimestamp();
    }

    public bool Enabled { get; }

    /// <summary>How long a probe may go unanswered.</summary>
    public TimeSpan Timeout { get; }

    /// <summary>Called by the read loop once per read (not per frame): the peer just sent something.</summary>
    public void Received() => Volatile.Write(ref _lastReceived, _time.GetTimestamp());

    /// <summary>
    /// Decides, at <paramref name="now"/>, whether to probe the peer or give up on it. Called by one
    /// thread at a time (the connection's tick).
    /// </summary>
    public KeepAliveAction Check(long now)
    {
        if (!Enabled)
            return KeepAliveAction.None;
        var lastReceived = Volatile.Read(ref _lastReceived);
        if (_probing)
        {
            // A read stamped at the probe's own timestamp came after it: a probe goes out only
            // once the last read is a whole interval old.
            if (lastReceived >= _probeSent)
                _probing = false;
            else
                return now - _probeSent >= _timeout ? KeepAliveAction.Dead : KeepAliveAction.None;
        }
        if (now - lastReceived < _interval)
            return KeepAliveAction.None;
        _probeSent = now;
        _probing = true;
        return KeepAliveAction.Probe;
    }
}
