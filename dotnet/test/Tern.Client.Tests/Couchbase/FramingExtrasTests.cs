using Tern.Client.Couchbase;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase;

/// <summary>FramingExtras: request frames byte for byte, and the server-duration frame of responses.</summary>
public class FramingExtrasTests
{
    private static byte[] Durability(DurabilityLevel level, TimeSpan? timeout)
    {
        var buffer = new byte[FramingExtras.MaxRequestLength];
        var written = FramingExtras.WriteDurability(buffer, level, timeout);
        return buffer[..written];
    }

    [Fact]
    public void DurabilityWithoutTimeoutIsTheLevelAlone()
    {
        Assert.Equal([0x11, 0x01], Durability(DurabilityLevel.Majority, null));
        Assert.Equal([0x11, 0x02], Durability(DurabilityLevel.MajorityAndPersistToActive, null));
        Assert.Equal([0x11, 0x03], Durability(DurabilityLevel.PersistToMajority, null));
    }

    [Theory]
    [InlineData(1500.0, new byte[] { 0x05, 0xdc })]
    [InlineData(1.0, new byte[] { 0x00, 0x01 })]
    [InlineData(65534.0, new byte[] { 0xff, 0xfe })]
    [InlineData(65535.0, new byte[] { 0xff, 0xfe })] // 0xffff is the server's reserved value
    [InlineData(0.0, new byte[] { 0x00, 0x01 })] // 0 would mean "the server's default"
    [InlineData(0.4, new byte[] { 0x00, 0x01 })]
    [InlineData(-5.0, new byte[] { 0x00, 0x01 })]
    [InlineData(65536.0, new byte[] { 0xff, 0xfe })]
    [InlineData(86_400_000.0, new byte[] { 0xff, 0xfe })]
    public void DurabilityTimeoutIsBigEndianMillisecondsClamped(double milliseconds, byte[] timeout)
    {
        byte[] expected = [0x13, 0x01, .. timeout];
        Assert.Equal(expected, Durability(DurabilityLevel.Majority, TimeSpan.FromMilliseconds(milliseconds)));
    }

    [Fact]
    public void DurabilityNoneIsNotAFrame()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => Durability(DurabilityLevel.None, null));
        Assert.Throws<ArgumentOutOfRangeException>(() => Durability((DurabilityLevel)4, null));
    }

    [Fact]
    public void PreserveTtlIsAnEmptyFrameFive()
    {
        var buffer = new byte[1];
        Assert.Equal(1, FramingExtras.WritePreserveTtl(buffer));
        Assert.Equal([0x50], buffer);
    }

    [Fact]
    public void BothRequestFramesFitMaxRequestLength()
    {
        Span<byte> buffer = stackalloc byte[FramingExtras.MaxRequestLength];
        var written = FramingExtras.WriteDurability(buffer, DurabilityLevel.PersistToMajority, TimeSpan.FromSeconds(10));
        written += FramingExtras.WritePreserveTtl(buffer[written..]);
        Assert.Equal([0x13, 0x03, 0x27, 0x10, 0x50], buffer[..written].ToArray());
    }

    [Fact]
    public void TooSmallDestinationsAreRejected()
    {
        Assert.Throws<ArgumentException>(() => FramingExtras.WriteDurability(new byte[3], DurabilityLevel.Majority, TimeSpan.FromSeconds(1)));
        Assert.Throws<ArgumentException>(() => FramingExtras.WriteDurability(new byte[1], DurabilityLevel.Majority, null));
        Assert.Throws<ArgumentException>(() => FramingExtras.WritePreserveTtl([]));
    }

    // Ticks (0.1 µs) of encoded^1.74 / 2 µs, computed with Python.
    [Theory]
    [InlineData(new byte[] { 0x02, 0x00, 0x00 }, 0L)]
    [InlineData(new byte[] { 0x02, 0x00, 0x01 }, 5L)] // 0.5 µs
    [InlineData(new byte[] { 0x02, 0x00, 0x02 }, 17L)] // 1.670 µs
    [InlineData(new byte[] { 0x02, 0x00, 0x64 }, 15_100L)] // 100: 1509.976 µs
    [InlineData(new byte[] { 0x02, 0x03, 0xe8 }, 829_793L)] // 1000: 82979.345 µs
    [InlineData(new byte[] { 0x02, 0xff, 0xff }, 1_201_250_421L)] // 65535: about 120 s
    [InlineData(new byte[] { 0x12, 0xaa, 0xbb, 0x02, 0x00, 0x64 }, 15_100L)] // after an unknown frame
    [InlineData(new byte[] { 0x50, 0x02, 0x00, 0x01 }, 5L)] // after an empty frame
    [InlineData(new byte[] { 0xf1, 0x03, 0xcc, 0x02, 0x00, 0x01 }, 5L)] // after a frame with an escaped id (18)
    [InlineData(new byte[] { 0xf0, 0xf1, 0x02, 0x00, 0x01 }, 5L)] // after an empty frame with id 15 + 0xf1
    [InlineData(new byte[] { 0x1f, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0x02, 0x00, 0x01 }, 5L)] // escaped length 16
    [InlineData(new byte[] { 0xff, 0x00, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0x02, 0x00, 0x02 }, 17L)] // both escaped
    public void ServerDurationIsDecodedWhereverItSits(byte[] framingExtras, long ticks)
    {
        Assert.True(FramingExtras.TryReadServerDuration(framingExtras, out var duration));
        Assert.Equal(TimeSpan.FromTicks(ticks), duration);
    }

    [Theory]
    [InlineData(new byte[0])]
    [InlineData(new byte[] { 0x12, 0xaa, 0xbb })] // no duration frame
    [InlineData(new byte[] { 0x02, 0x00 })] // truncated
    [InlineData(new byte[] { 0x13, 0xaa, 0xbb, 0x02, 0x00, 0x01 })] // a 3-byte frame swallows the duration frame's header
    [InlineData(new byte[] { 0x1f })] // escape byte missing
    [InlineData(new byte[] { 0xf0 })] // escape byte missing
    [InlineData(new byte[] { 0x01, 0x05 })] // id 0 with one byte
    [InlineData(new byte[] { 0x03, 0x00, 0x00, 0x01 })] // id 0 with three bytes
    [InlineData(new byte[] { 0x0f, 0xf0, 0x00, 0x01 })] // id 0 with an escaped length of 255 overruns
    public void NoOrMalformedDurationFrameIsFalse(byte[] framingExtras)
    {
        Assert.False(FramingExtras.TryReadServerDuration(framingExtras, out var duration));
        Assert.Equal(TimeSpan.Zero, duration);
    }
}
