namespace Tern.Client.IO;

/// <summary>
/// What a connection remembers about operations it timed out, so that a late response can be
/// reported with its key and delay. Bounded: the oldest entries are forgotten first.
/// </summary>
internal sealed class TimedOutOperations
{
    private const int Capacity = 1024;

    private readonly Dictionary<uint, OrphanRecord> _byOpaque = new();
    private readonly Queue<uint> _order = new();

    public void Remember(OrphanRecord record)
    {
        lock (_byOpaque)
        {
            if (_order.Count == Capacity)
                _byOpaque.Remove(_order.Dequeue());
            _byOpaque[record.Opaque] = record;
            _order.Enqueue(record.Opaque);
        }
    }

    public bool Take(uint opaque, out OrphanRecord record)
    {
        lock (_byOpaque)
            return _byOpaque.Remove(opaque, out record);
    }
}
