using System.Buffers;
using System.Runtime.InteropServices;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.IO;

/// <summary>
/// The connection's send buffer: frames come out in the order they went in, none lost across the
/// swap of its two buffers or a wake-up, completion ends the stream only after what was appended,
/// and its buffers go back to the pool when a burst has been sent and when the send loop ends.
/// </summary>
public class SendBufferTests
{
    private readonly Lock _writeLock = new();

    [Fact]
    public async Task FramesComeOutInAppendOrderWithTheirOpaquesAndVBuckets()
    {
        var buffer = new SendBuffer(_writeLock);
        Append(buffer, "first", opaque: 1, vbucket: 10);
        Append(buffer, "second", opaque: 2, vbucket: 20);

        var frames = await buffer.TakeAsync();

        Assert.Equal([("first", 1u, (ushort)10), ("second", 2u, 20)], Decode(frames));
    }

    [Fact]
    public async Task WritersFillTheOtherBufferWhileTakenFramesAreBeingSent()
    {
        var buffer = new SendBuffer(_writeLock);
        Append(buffer, "first", opaque: 1);
        var sending = await buffer.TakeAsync();

        Append(buffer, "second", opaque: 2);

        Assert.Equal([("first", 1u, (ushort)0)], Decode(sending));
        Assert.Equal([("second", 2u, (ushort)0)], Decode(await buffer.TakeAsync()));
    }

    [Fact]
    public async Task AWaitingTakeIsWokenByTheNextAppendAndGetsEverythingAppendedByThen()
    {
        var buffer = new SendBuffer(_writeLock);
        var take = buffer.TakeAsync();
        Assert.False(take.IsCompleted);

        lock (_writeLock)
        {
            Append(buffer, "first", opaque: 1);
            // Woken by the first append; the taker needs the lock, so the second joins the same take.
            Append(buffer, "second", opaque: 2);
        }

        var frames = await take.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(["first", "second"], Decode(frames).Select(f => f.Key));
    }

    [Fact]
    public async Task ManyWritersLoseAndReorderNothingAcrossTakes()
    {
        var buffer = new SendBuffer(_writeLock);
        const int writers = 4, perWriter = 2_000;
        var received = new List<(string Key, uint Opaque, ushort VBucket)>();
        var taker = Task.Run(async () =>
        {
            while (received.Count < writers * perWriter)
                received.AddRange(Decode(await buffer.TakeAsync()));
        });

        await Task.WhenAll(Enumerable.Range(0, writers).Select(w => Task.Run(() =>
        {
            for (var i = 0; i < perWriter; i++)
                Append(buffer, $"w{w}", opaque: (uint)i);
        })));
        await taker.WaitAsync(TimeSpan.FromSeconds(30));

        foreach (var group in received.GroupBy(f => f.Key))
            Assert.Equal(Enumerable.Range(0, perWriter).Select(i => (uint)i), group.Select(f => f.Opaque));
        Assert.Equal(writers, received.Select(f => f.Key).Distinct().Count());
    }

    [Fact]
    public async Task ABatchLargerThanTheBufferGrowsItAndStaysWhole()
    {
        var buffer = new SendBuffer(_writeLock);
        var keys = Enumerable.Range(0, 2 * SendBuffer.InitialSize / 100).Select(i => $"key-{i:d4}-" + new string('x', 80)).ToList();
        lock (_writeLock)
        {
            foreach (var key in keys)
                Append(buffer, key, opaque: 0);
        }

        var frames = await buffer.TakeAsync();

        Assert.True(frames.Length > SendBuffer.InitialSize);
        Assert.Equal(keys, Decode(frames).Select(f => f.Key));
        Append(buffer, "after", opaque: 1);
        Assert.Equal(["after"], Decode(await buffer.TakeAsync()).Select(f => f.Key));
    }

    [Fact]
    public async Task CompleteEndsTheStreamAfterWhatWasAppended()
    {
        var buffer = new SendBuffer(_writeLock);
        Append(buffer, "last", opaque: 1);
        lock (_writeLock)
            buffer.Complete();

        Assert.Equal(["last"], Decode(await buffer.TakeAsync()).Select(f => f.Key));
        Assert.True((await buffer.TakeAsync()).IsEmpty);
    }

    [Fact]
    public async Task CompleteWakesAWaitingTakeWithEmptyFrames()
    {
        var buffer = new SendBuffer(_writeLock);
        var take = buffer.TakeAsync();

        lock (_writeLock)
            buffer.Complete();

        Assert.True((await take.AsTask().WaitAsync(TimeSpan.FromSeconds(10))).IsEmpty);
    }

    [Fact]
    public async Task ABufferABurstGrewGoesBackToThePoolOnceSentAndSmallOnesServeTheRest()
    {
        var pool = new WatchedPool();
        var buffer = new SendBuffer(_writeLock, pool);
        // About 670 KB in one take: the filling buffer grows well past what is kept.
        var value = new byte[64 * 1024];
        lock (_writeLock)
        {
            for (var i = 0; i < 10; i++)
                Append(buffer, $"large-{i}", opaque: (uint)i, value: value);
        }

        var burst = await buffer.TakeAsync();
        var large = ArrayOf(burst);
        Assert.True(burst.Length > 10 * value.Length);
        Assert.True(large.Length > SendBuffer.RetainedMaxSize);
        Assert.True(pool.IsOut(large));

        buffer.Sent();

        Assert.False(pool.IsOut(large), "the burst's buffer was still held after it was sent");
        for (var i = 0; i < 4; i++)
        {
            Append(buffer, $"small-{i}", opaque: (uint)i);
            var frames = await buffer.TakeAsync();
            Assert.Equal([$"small-{i}"], Decode(frames).Select(f => f.Key));
            Assert.True(ArrayOf(frames).Length <= SendBuffer.RetainedMaxSize);
            buffer.Sent();
        }
        Assert.All(pool.Held, array => Assert.True(array.Length <= SendBuffer.RetainedMaxSize));
        Assert.Equal(2, pool.Held.Count);
    }

    [Fact]
    public async Task ReleaseAfterCompletionReturnsBothBuffersAndEndsTheStream()
    {
        var pool = new WatchedPool();
        var buffer = new SendBuffer(_writeLock, pool);
        Append(buffer, "sent", opaque: 1);
        await buffer.TakeAsync();
        Append(buffer, "never taken", opaque: 2);
        Assert.Equal(2, pool.Held.Count);

        lock (_writeLock)
            buffer.Complete();
        buffer.Release();

        Assert.Empty(pool.Held);
        Assert.True((await buffer.TakeAsync()).IsEmpty);
        buffer.Release(); // the second is a no-op: nothing goes back twice
        Assert.Empty(pool.Held);
    }

    [Fact]
    public void AppendAfterCompleteIsRefusedNamingTheState()
    {
        var buffer = new SendBuffer(_writeLock);
        lock (_writeLock)
            buffer.Complete();

        var error = Assert.Throws<InvalidOperationException>(() => Append(buffer, "late", opaque: 1));
        Assert.Contains("Completed", error.Message);
        buffer.Release();
        error = Assert.Throws<InvalidOperationException>(() => Append(buffer, "later", opaque: 2));
        Assert.Contains("Released", error.Message);
    }

    [Fact]
    public async Task AWokenTakeCanBeReadOnceAndNotSwapTheBuffersAgain()
    {
        var buffer = new SendBuffer(_writeLock);
        var take = buffer.TakeAsync();
        Append(buffer, "first", opaque: 1);
        var frames = await take.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        Append(buffer, "second", opaque: 2);

        // The same ValueTask read again: the same token, which would hand "first"'s buffer to the writers.
        Assert.Throws<InvalidOperationException>(() => take.Result);

        Assert.Equal(["first"], Decode(frames).Select(f => f.Key));
        Assert.Equal(["second"], Decode(await buffer.TakeAsync()).Select(f => f.Key));
    }

    private void Append(SendBuffer buffer, string key, uint opaque, ushort vbucket = 0, byte[]? value = null)
    {
        var request = new RequestBuffer();
        request.Begin(key, null, []);
        if (value is not null)
            request.Write(value);
        request.Finish(Opcode.Get, Datatype.Raw, 0);
        lock (_writeLock)
            buffer.Append(request, opaque, vbucket);
    }

    private static byte[] ArrayOf(ReadOnlyMemory<byte> frames)
    {
        Assert.True(MemoryMarshal.TryGetArray(frames, out var segment));
        return segment.Array!;
    }

    /// <summary>The shared pool, keeping count of the arrays rented from it and not yet returned.</summary>
    private sealed class WatchedPool : ArrayPool<byte>
    {
        private readonly HashSet<byte[]> _out = new(ReferenceEqualityComparer.Instance);

        public IReadOnlyCollection<byte[]> Held
        {
            get
            {
                lock (_out)
                    return _out.ToList();
            }
        }

        public bool IsOut(byte[] array)
        {
            lock (_out)
                return _out.Contains(array);
        }

        public override byte[] Rent(int minimumLength)
        {
            var array = Shared.Rent(minimumLength);
            lock (_out)
                Assert.True(_out.Add(array), "the pool handed out an array twice");
            return array;
        }

        public override void Return(byte[] array, bool clearArray = false)
        {
            lock (_out)
                Assert.True(_out.Remove(array), "an array went back to the pool that was not out of it");
            Shared.Return(array, clearArray);
        }
    }

    private static List<(string Key, uint Opaque, ushort VBucket)> Decode(ReadOnlyMemory<byte> frames)
    {
        var decoded = new List<(string, uint, ushort)>();
        var rest = frames.Span;
        while (!rest.IsEmpty)
        {
            Assert.Equal(DecodeResult.Ok, FrameCodec.TryDecode(rest, out var frame));
            decoded.Add((System.Text.Encoding.UTF8.GetString(frame.Key), frame.Header.Opaque, frame.Header.VBucketOrStatus));
            rest = rest[(int)frame.Header.FrameSize..];
        }
        return decoded;
    }
}
