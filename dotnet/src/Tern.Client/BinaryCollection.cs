using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client;

/// <summary>Operations on a document's raw bytes: counters, append and prepend.</summary>
public sealed class BinaryCollection
{
    private readonly Collection _collection;

    internal BinaryCollection(Collection collection) => _collection = collection;

    /// <summary>Adds to a decimal counter; by default a missing counter is created with <see cref="CounterOptions.Initial"/>.</summary>
    public ValueTask<CounterResult> IncrementAsync(string key, CounterOptions? options = null) =>
        Count(Opcode.Increment, key, options ?? Defaults<CounterOptions>.Value);

    /// <summary>Subtracts from a decimal counter, stopping at zero.</summary>
    public ValueTask<CounterResult> DecrementAsync(string key, CounterOptions? options = null) =>
        Count(Opcode.Decrement, key, options ?? Defaults<CounterOptions>.Value);

    /// <summary>Appends bytes to an existing document; <see cref="Exceptions.DocumentNotFoundException"/> if it does not exist.</summary>
    public ValueTask<MutationResult> AppendAsync(string key, ReadOnlyMemory<byte> value, AdjoinOptions? options = null)
    {
        options ??= Defaults<AdjoinOptions>.Value;
        return _collection.Mutate(Opcode.Append, key, default, options.Cas, value.Span, options, options.Durability);
    }

    /// <summary>Prepends bytes to an existing document; <see cref="Exceptions.DocumentNotFoundException"/> if it does not exist.</summary>
    public ValueTask<MutationResult> PrependAsync(string key, ReadOnlyMemory<byte> value, AdjoinOptions? options = null)
    {
        options ??= Defaults<AdjoinOptions>.Value;
        return _collection.Mutate(Opcode.Prepend, key, default, options.Cas, value.Span, options, options.Durability);
    }

    private ValueTask<CounterResult> Count(Opcode opcode, string key, CounterOptions options)
    {
        Span<byte> framing = stackalloc byte[FramingExtras.MaxRequestLength];
        var framingLength = _collection.WriteFraming(framing, key, options.Durability, preserveTtl: false, options);
        return _collection.Send(CounterOperation.Create(opcode, key, _collection.CollectionId, options.Delta, options.Initial,
            Expiry.ToWire(options.Expiry, _collection.TimeProvider, key), framing[..framingLength], options.Durability), options);
    }
}
