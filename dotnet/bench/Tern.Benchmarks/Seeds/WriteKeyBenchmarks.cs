using System.Buffers;
using System.IO.Pipelines;
using BenchmarkDotNet.Attributes;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Benchmarks.Seeds;

/// <summary>
/// Putting a collection-prefixed key into an outgoing request frame. Every method ends with the
/// key's wire bytes where a connection sends them from (a pipe, or since issue 12 the SDK's send
/// buffer); they differ in where the bytes are encoded first. A batch of keys is written per
/// invocation and drained once per batch, the same for every method, as a connection does when it
/// sends many requests at once.
/// </summary>
[MemoryDiagnoser]
public class WriteKeyBenchmarks
{
    private const int KeysPerBatch = 64;

    // Collection id 8 is the first id a server hands out to a user collection (1-byte LEB128).
    private const uint CollectionId = 8;
    private const string Key = "user::0000012345";

    private static ReadOnlySpan<byte> Extras => [0, 0, 0, 0];

    private readonly RequestBuffer _request = new();
    private readonly Lock _writeLock = new();
    private readonly SendBuffer _sendBuffer;
    private readonly Pipe _pipe = new(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));

    public WriteKeyBenchmarks() => _sendBuffer = new SendBuffer(_writeLock);

    [GlobalCleanup]
    public void Cleanup()
    {
        _pipe.Writer.Complete();
        _pipe.Reader.Complete();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = KeysPerBatch)]
    public void WriteKeyMemoryPool()
    {
        for (var i = 0; i < KeysPerBatch; i++)
        {
            using var owner = MemoryPool<byte>.Shared.Rent(KeyWriter.MaxWireLength);
            var length = KeyWriter.Write(owner.Memory.Span, Key, CollectionId);
            _pipe.Writer.Write(owner.Memory.Span[..length]);
        }
        Drain();
    }

    [Benchmark(OperationsPerInvoke = KeysPerBatch)]
    public void WriteKeyArrayPool()
    {
        for (var i = 0; i < KeysPerBatch; i++)
        {
            var buffer = ArrayPool<byte>.Shared.Rent(KeyWriter.MaxWireLength);
            var length = KeyWriter.Write(buffer, Key, CollectionId);
            _pipe.Writer.Write(buffer.AsSpan(0, length));
            ArrayPool<byte>.Shared.Return(buffer);
        }
        Drain();
    }

    [Benchmark(OperationsPerInvoke = KeysPerBatch)]
    public void WriteKeyHeapArray()
    {
        for (var i = 0; i < KeysPerBatch; i++)
        {
            var buffer = new byte[KeyWriter.GetWireLength(Key, CollectionId)];
            KeyWriter.Write(buffer, Key, CollectionId);
            _pipe.Writer.Write(buffer);
        }
        Drain();
    }

    [Benchmark(OperationsPerInvoke = KeysPerBatch)]
    public void WriteKeyStackAlloc()
    {
        for (var i = 0; i < KeysPerBatch; i++)
        {
            WriteViaStack(_pipe.Writer);
        }
        Drain();
    }

    // One stack buffer per key, as a send path takes it per request.
    private static void WriteViaStack(PipeWriter writer)
    {
        Span<byte> buffer = stackalloc byte[KeyWriter.MaxWireLength];
        var length = KeyWriter.Write(buffer, Key, CollectionId);
        writer.Write(buffer[..length]);
    }

    [Benchmark(OperationsPerInvoke = KeysPerBatch)]
    public void WriteKeyToPipe()
    {
        for (var i = 0; i < KeysPerBatch; i++)
        {
            KeyWriter.Write(_pipe.Writer, Key, CollectionId);
        }
        Drain();
    }

    /// <summary>
    /// The SDK's request path, through the methods production calls: <see cref="RequestBuffer.Begin(string, uint?, ReadOnlySpan{byte}, ReadOnlySpan{byte})"/>
    /// (what an operation's Prepare calls: the key encoded after the header and 4 bytes of extras),
    /// <see cref="RequestBuffer.Finish"/> (its Seal: the header) and <see cref="SendBuffer.Append"/>
    /// (what the connection calls under its write lock, taken here once per request as each
    /// <c>Send</c> takes it: the frame copied into the send buffer with opaque and vbucket). Per
    /// batch, the send loop's <see cref="SendBuffer.TakeAsync"/> and <see cref="SendBuffer.Sent"/>.
    /// </summary>
    [Benchmark(OperationsPerInvoke = KeysPerBatch)]
    public void EncodeRequestToSendBuffer()
    {
        for (var i = 0; i < KeysPerBatch; i++)
        {
            _request.Begin(Key, CollectionId, Extras);
            _request.Finish(Opcode.Get, Datatype.Raw, 0);
            lock (_writeLock)
                _sendBuffer.Append(_request, (uint)i, 0);
        }
        _ = _sendBuffer.TakeAsync().Result;
        _sendBuffer.Sent();
    }

    /// <summary>
    /// The request path until issue 12's send buffer, for comparison: the same request copied into the
    /// pipe, one <c>GetSpan</c> and <c>Advance</c> per request.
    /// </summary>
    [Benchmark(OperationsPerInvoke = KeysPerBatch)]
    public void EncodeRequestToPipe()
    {
        var writer = _pipe.Writer;
        for (var i = 0; i < KeysPerBatch; i++)
        {
            _request.Begin(Key, CollectionId, Extras);
            _request.Finish(Opcode.Get, Datatype.Raw, 0);
            var length = _request.Written.Length;
            _request.CopyTo(writer.GetSpan(length), (uint)i, 0);
            writer.Advance(length);
        }
        Drain();
    }

    /// <summary>Reference row: validating a key and measuring its wire length, which every method pays.</summary>
    [Benchmark(OperationsPerInvoke = KeysPerBatch)]
    public int ValidateKeyOnly()
    {
        var total = 0;
        for (var i = 0; i < KeysPerBatch; i++)
            total += KeyWriter.GetWireLength(Key, CollectionId);
        return total;
    }

    /// <summary>Flushes the batch and consumes it, so the pipe's segments go back to its pool.</summary>
    private void Drain()
    {
        var flush = _pipe.Writer.FlushAsync();
        if (!flush.IsCompletedSuccessfully)
            flush.AsTask().GetAwaiter().GetResult();
        if (_pipe.Reader.TryRead(out var read))
            _pipe.Reader.AdvanceTo(read.Buffer.End);
    }
}
