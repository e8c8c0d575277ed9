using System.Buffers;

namespace Tern.Client.Tests.Support;

/// <summary>Builds multi-segment sequences, to test code paths that span buffer boundaries.</summary>
public static class Segments
{
    public static ReadOnlySequence<byte> Split(byte[] bytes, int segmentSize)
    {
        if (bytes.Length <= segmentSize)
            return new ReadOnlySequence<byte>(bytes);
        Segment? first = null, last = null;
        for (var offset = 0; offset < bytes.Length; offset += segmentSize)
        {
            var chunk = bytes.AsMemory(offset, Math.Min(segmentSize, bytes.Length - offset));
            var segment = new Segment(chunk, last is null ? 0 : last.RunningIndex + last.Memory.Length);
            if (last is null)
                first = segment;
            else
                last.SetNext(segment);
            last = segment;
        }
        return new ReadOnlySequence<byte>(first!, 0, last!, last!.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public void SetNext(Segment next) => Next = next;
    }
}
