using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Protocol;

/// <summary>Table tests over testdata/mcbp/leb128.json.</summary>
public class Leb128Tests
{
    public static TheoryData<uint, string> Valid()
    {
        var data = new TheoryData<uint, string>();
        using var doc = TestData.Load("mcbp/leb128.json");
        foreach (var item in doc.RootElement.GetProperty("valid").EnumerateArray())
            data.Add(item.GetProperty("value").GetUInt32(), item.GetProperty("hex").GetString()!);
        return data;
    }

    public static TheoryData<string, string> Invalid()
    {
        var data = new TheoryData<string, string>();
        using var doc = TestData.Load("mcbp/leb128.json");
        foreach (var item in doc.RootElement.GetProperty("invalid").EnumerateArray())
            data.Add(item.GetProperty("name").GetString()!, item.GetProperty("hex").GetString()!);
        return data;
    }

    [Theory]
    [MemberData(nameof(Valid))]
    public void EncodesCanonically(uint value, string hex)
    {
        Span<byte> buffer = stackalloc byte[Leb128.MaxLength];
        var written = Leb128.Write(buffer, value);
        Assert.Equal(hex, Convert.ToHexStringLower(buffer[..written]));
        Assert.Equal(written, Leb128.GetLength(value));
    }

    [Theory]
    [MemberData(nameof(Valid))]
    public void DecodesValidEncodings(uint value, string hex)
    {
        var bytes = TestData.Hex(hex + "41"); // a key byte follows the prefix on the wire
        Assert.True(Leb128.TryRead(bytes, out var decoded, out var read));
        Assert.Equal(value, decoded);
        Assert.Equal(hex.Length / 2, read);
    }

    [Theory]
    [MemberData(nameof(Invalid))]
    public void RejectsInvalidEncodings(string name, string hex)
    {
        Assert.False(Leb128.TryRead(TestData.Hex(hex), out _, out _), name);
    }
}
