using System.Buffers;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Protocol;

public class KeyWriterTests
{
    [Fact]
    public void WritesUtf8WithoutPrefix()
    {
        Span<byte> buffer = stackalloc byte[KeyWriter.MaxWireLength];
        var written = KeyWriter.Write(buffer, "héllo");
        Assert.Equal(Encoding.UTF8.GetBytes("héllo"), buffer[..written].ToArray());
    }

    [Theory]
    [InlineData(0u, "00")]
    [InlineData(8u, "08")]
    [InlineData(300u, "ac02")]
    public void PrefixesTheCollectionIdAsLeb128(uint collectionId, string prefixHex)
    {
        Span<byte> buffer = stackalloc byte[KeyWriter.MaxWireLength];
        var written = KeyWriter.Write(buffer, "k", collectionId);
        Assert.Equal(prefixHex + "6b", Convert.ToHexStringLower(buffer[..written]));
        Assert.Equal(written, KeyWriter.GetWireLength("k", collectionId));
    }

    [Fact]
    public void EveryLengthAndPlaceOfANonAsciiCharEncodesAsUtf8()
    {
        // ASCII keys take a vector copy in steps of 8 chars, the last overlapping; a non-ASCII char
        // anywhere, in any step, must hand the whole key to the UTF-8 encoder.
        Span<byte> buffer = stackalloc byte[KeyWriter.MaxWireLength];
        for (var length = 1; length <= 40; length++)
        {
            var ascii = string.Concat(Enumerable.Range(0, length).Select(i => (char)('a' + i % 26)));
            AssertEncodesAsUtf8(buffer, ascii);
            for (var at = 0; at < length; at++)
            {
                AssertEncodesAsUtf8(buffer, ascii[..at] + 'é' + ascii[(at + 1)..]);
                AssertEncodesAsUtf8(buffer, ascii[..at] + '\u0080' + ascii[(at + 1)..]);
            }
        }
    }

    private static void AssertEncodesAsUtf8(Span<byte> buffer, string key)
    {
        var written = KeyWriter.Write(buffer, key, 8);
        Assert.Equal([8, .. Encoding.UTF8.GetBytes(key)], buffer[..written].ToArray());
    }

    [Fact]
    public void AcceptsA250ByteKey()
    {
        var key = new string('k', 250);
        var writer = new ArrayBufferWriter<byte>();
        Assert.Equal(250, KeyWriter.Write(writer, key));
        Assert.Equal(Encoding.ASCII.GetBytes(key), writer.WrittenSpan.ToArray());
    }

    [Fact]
    public void RejectsA251ByteKeyNamingKeyAndLimit()
    {
        var key = new string('k', 251);
        var writer = new ArrayBufferWriter<byte>();
        var error = Assert.Throws<InvalidArgumentException>(() => KeyWriter.Write(writer, key));
        Assert.Equal(key, error.Key);
        Assert.Contains(key, error.Message);
        Assert.Contains("250", error.Message);
        Assert.Equal(0, writer.WrittenCount);
    }

    [Fact]
    public void CountsUtf8BytesNotChars()
    {
        // 126 two-byte chars = 252 bytes: too long although only 126 chars.
        var key = new string('é', 126);
        Assert.Throws<InvalidArgumentException>(() => KeyWriter.GetWireLength(key));
        Assert.Equal(250, KeyWriter.GetWireLength(new string('é', 125)));
    }

    [Fact]
    public void NonDefaultCollectionsAllow246Bytes()
    {
        Assert.Equal(246 + 1, KeyWriter.GetWireLength(new string('k', 246), 8));
        Assert.Throws<InvalidArgumentException>(() => KeyWriter.GetWireLength(new string('k', 247), 8));
        Assert.Equal(250 + 1, KeyWriter.GetWireLength(new string('k', 250), 0));
    }

    [Theory]
    [InlineData("é")]          // 2 UTF-8 bytes
    [InlineData("€")]          // 3 UTF-8 bytes
    [InlineData("\U0001F600")] // 4 UTF-8 bytes, a surrogate pair
    public void AMultibyteCharStraddlingTheLimitIsRejectedWhole(string wide)
    {
        var wideBytes = Encoding.UTF8.GetByteCount(wide);
        var fits = new string('k', KeyWriter.MaxKeyLength - wideBytes) + wide;
        var straddles = new string('k', KeyWriter.MaxKeyLength - wideBytes + 1) + wide;

        var writer = new ArrayBufferWriter<byte>();
        Assert.Equal(KeyWriter.MaxKeyLength, KeyWriter.Write(writer, fits));
        Assert.Equal(Encoding.UTF8.GetBytes(fits), writer.WrittenSpan.ToArray());

        writer.Clear();
        var error = Assert.Throws<InvalidArgumentException>(() => KeyWriter.Write(writer, straddles));
        Assert.Contains("251 bytes", error.Message);
        Assert.Equal(0, writer.WrittenCount);
        var buffer = new byte[KeyWriter.MaxWireLength];
        Assert.Throws<InvalidArgumentException>(() => KeyWriter.Write(buffer, straddles));
    }

    [Fact]
    public void TheLimitInACollectionIsOnTheLogicalKeyWhateverThePrefixLength()
    {
        var writer = new ArrayBufferWriter<byte>();
        // 246 bytes after a 1-byte prefix, and after the longest (5-byte) prefix: a 251-byte wire key.
        Assert.Equal(1 + 246, KeyWriter.Write(writer, new string('k', 246), 8));
        writer.Clear();
        Assert.Equal(5 + 246, KeyWriter.Write(writer, new string('k', 246), uint.MaxValue));
        Assert.Equal("ffffffff0f", Convert.ToHexStringLower(writer.WrittenSpan[..5]));

        writer.Clear();
        var straddles = new string('k', 245) + "é";
        var error = Assert.Throws<InvalidArgumentException>(() => KeyWriter.Write(writer, straddles, 8));
        Assert.Contains("246", error.Message);
        Assert.Equal(0, writer.WrittenCount);
    }

    [Fact]
    public void AValidKeyTooBigForTheCallersBufferIsAnArgumentErrorNotAKeyError()
    {
        var buffer = new byte[10];
        var error = Assert.Throws<ArgumentException>(() => KeyWriter.Write(buffer, "document::12345", 8));
        Assert.IsNotType<InvalidArgumentException>(error);
        Assert.Contains("needs 16", error.Message);
    }

    [Fact]
    public void ALoneSurrogateIsWrittenAsTheReplacementCharLikeTheLengthCountsIt()
    {
        var key = "k\ud800k";
        var buffer = new byte[KeyWriter.MaxWireLength];
        var written = KeyWriter.Write(buffer, key);
        Assert.Equal(KeyWriter.GetWireLength(key), written);
        Assert.Equal("6befbfbd6b", Convert.ToHexStringLower(buffer.AsSpan(0, written)));
    }

    [Fact]
    public void RejectsAnEmptyKey()
    {
        var error = Assert.Throws<InvalidArgumentException>(() => KeyWriter.GetWireLength(""));
        Assert.Equal("document key must not be empty", error.Message);
    }

    [Fact]
    public void WritesStraightIntoABufferWriterWithoutAllocating()
    {
        var writer = new ArrayBufferWriter<byte>(1024);
        KeyWriter.Write(writer, "warm-up", 8);
        writer.ResetWrittenCount();
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 100; i++)
        {
            KeyWriter.Write(writer, "document::12345", 8);
            writer.ResetWrittenCount();
        }
        Assert.Equal(before, GC.GetAllocatedBytesForCurrentThread());
    }
}
