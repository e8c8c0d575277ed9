using System.Buffers;
using System.Text.Json;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Protocol;

/// <summary>Table tests over testdata/mcbp/frames.json, shared with the C++ server's codec.</summary>
public class FrameCodecVectorTests
{
    public static TheoryData<string> FrameNames()
    {
        var names = new TheoryData<string>();
        using var doc = TestData.Load("mcbp/frames.json");
        foreach (var frame in doc.RootElement.GetProperty("frames").EnumerateArray())
            names.Add(frame.GetProperty("name").GetString()!);
        return names;
    }

    private static JsonElement Vector(string name)
    {
        using var doc = TestData.Load("mcbp/frames.json");
        foreach (var frame in doc.RootElement.GetProperty("frames").EnumerateArray())
        {
            if (frame.GetProperty("name").GetString() == name)
                return frame.Clone();
        }
        throw new KeyNotFoundException(name);
    }

    private static DecodeResult Expected(JsonElement vector) => vector.GetProperty("result").GetString() switch
    {
        "ok" => DecodeResult.Ok,
        "need_more" => DecodeResult.NeedMore,
        "bad_magic" => DecodeResult.BadMagic,
        "bad_lengths" => DecodeResult.BadLengths,
        var other => throw new InvalidDataException($"unknown result '{other}'"),
    };

    [Theory]
    [MemberData(nameof(FrameNames))]
    public void DecodesSpanAsTheVectorSays(string name)
    {
        var vector = Vector(name);
        var bytes = TestData.Hex(vector.GetProperty("hex").GetString()!);

        var result = FrameCodec.TryDecode(bytes, out var frame);

        Assert.Equal(Expected(vector), result);
        if (result != DecodeResult.Ok)
            return;
        Assert.Equal(vector.GetProperty("magic").GetInt32(), frame.Header.Magic);
        Assert.Equal(vector.GetProperty("opcode").GetInt32(), frame.Header.Opcode);
        Assert.Equal(vector.GetProperty("datatype").GetInt32(), frame.Header.Datatype);
        Assert.Equal(vector.GetProperty("vbucket_or_status").GetInt32(), frame.Header.VBucketOrStatus);
        Assert.Equal(vector.GetProperty("opaque").GetUInt32(), frame.Header.Opaque);
        Assert.Equal(ulong.Parse(vector.GetProperty("cas").GetString()!), frame.Header.Cas);
        Assert.Equal(vector.GetProperty("framing_extras").GetString(), Convert.ToHexStringLower(frame.FramingExtras));
        Assert.Equal(vector.GetProperty("extras").GetString(), Convert.ToHexStringLower(frame.Extras));
        Assert.Equal(vector.GetProperty("key").GetString(), Convert.ToHexStringLower(frame.Key));
        Assert.Equal(vector.GetProperty("value").GetString(), Convert.ToHexStringLower(frame.Value));
        Assert.Equal(vector.GetProperty("size").GetInt32(), frame.Size);
    }

    [Theory]
    [MemberData(nameof(FrameNames))]
    public void DecodesSegmentedSequenceLikeTheSpan(string name)
    {
        var vector = Vector(name);
        var bytes = TestData.Hex(vector.GetProperty("hex").GetString()!);
        // Split every few bytes so the header itself straddles segments.
        var sequence = Segments.Split(bytes, 7);

        var result = FrameCodec.TryDecode(sequence, out var header, out var body);

        Assert.Equal(Expected(vector), result);
        if (result == DecodeResult.Ok)
        {
            Assert.Equal(vector.GetProperty("size").GetInt64(), header.FrameSize);
            Assert.Equal(bytes.AsSpan(FrameHeader.Size, (int)header.BodyLength).ToArray(), body.ToArray());
        }
    }

    [Theory]
    [MemberData(nameof(FrameNames))]
    public void OkVectorsRoundTrip(string name)
    {
        var vector = Vector(name);
        if (Expected(vector) != DecodeResult.Ok)
            return;
        var bytes = TestData.Hex(vector.GetProperty("hex").GetString()!);
        var size = vector.GetProperty("size").GetInt32();
        byte[] Part(string field) => TestData.Hex(vector.GetProperty(field).GetString()!);
        var encoded = new byte[size];

        var written = FrameCodec.Encode(encoded,
            (byte)vector.GetProperty("magic").GetInt32(),
            (byte)vector.GetProperty("opcode").GetInt32(),
            (byte)vector.GetProperty("datatype").GetInt32(),
            (ushort)vector.GetProperty("vbucket_or_status").GetInt32(),
            vector.GetProperty("opaque").GetUInt32(),
            ulong.Parse(vector.GetProperty("cas").GetString()!),
            Part("framing_extras"), Part("extras"), Part("key"), Part("value"));

        Assert.Equal(size, written);
        Assert.Equal(Convert.ToHexStringLower(bytes.AsSpan(0, size)), Convert.ToHexStringLower(encoded));
    }
}
