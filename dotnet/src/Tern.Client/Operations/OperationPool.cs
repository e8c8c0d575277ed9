namespace Tern.Client.Operations;

/// <summary>
/// A small lock-free pool of operation objects, so the steady state allocates none.
/// Losing an object (a caller that never awaits) only costs a future allocation.
/// </summary>
public static class OperationPool<T> where T : class, new()
{
    private static readonly T?[] Items = new T?[Math.Max(64, Environment.ProcessorCount * 16)];

    public static T Rent()
    {
        var items = Items;
        for (var i = 0; i < items.Length; i++)
        {
            var item = Volatile.Read(ref items[i]);
            if (item is not null && Interlocked.CompareExchange(ref items[i], null, item) == item)
                return item;
        }
        return new T();
    }

    public static void Return(T item)
    {
        var items = Items;
        for (var i = 0; i < items.Length; i++)
        {
            if (Volatile.Read(ref items[i]) is null && Interlocked.CompareExchange(ref items[i], item, null) is null)
                return;
        }
    }
}
