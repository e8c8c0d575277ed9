using System.Buffers;
using System.Buffers.Binary;
using System.Text;
using System.Text.Json;
using BenchmarkDotNet.Attributes;
using Tern.Client;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Benchmarks.Seeds;

/// <summary>
/// Encoding a MutateIn of four specs (the example plus an XATTR) into a request buffer.
/// The baseline turns each spec into its own arrays first (the path's UTF-8 bytes, the value's
/// JSON), as a straightforward encoder would; the SDK's way keeps specs as structs in a reused
/// builder, serializes values into one reused buffer and encodes paths straight from their strings.
/// </summary>
[MemoryDiagnoser]
public class SubdocEncodeBenchmarks
{
    private const string Key = "user::0000012345";
    private const uint CollectionId = 8;

    private readonly RequestBuffer _request = new();
    private readonly byte[] _order = new byte[16];

    [Benchmark(Baseline = true)]
    public int ArrayPerSpec()
    {
        _request.Begin(Key, CollectionId, default);
        WriteSpec((byte)Opcode.SubdocDictUpsert, 0x05, "meta.tag", JsonSerializer.SerializeToUtf8Bytes("blue"));
        WriteSpec((byte)Opcode.SubdocDictUpsert, 0x01, "address.geo.lat", JsonSerializer.SerializeToUtf8Bytes(48.85));
        WriteSpec((byte)Opcode.SubdocArrayPushLast, 0, "langs", JsonSerializer.SerializeToUtf8Bytes("de"));
        WriteSpec((byte)Opcode.SubdocCounter, 0, "n", JsonSerializer.SerializeToUtf8Bytes(1L));
        return _request.Value.Length;
    }

    [Benchmark]
    public int ReusedBuilder()
    {
        var builder = MutateInSpecBuilder.Rent(Key, JsonTranscoder.Default);
        builder.Upsert("address.geo.lat", 48.85, createPath: true).ArrayAppend("langs", "de").Increment("n", 1)
            .Upsert("meta.tag", "blue", createPath: true, isXattr: true);
        _request.Begin(Key, CollectionId, default);
        builder.Specs.Encode(_request, mutation: true, builder.Values, _order);
        builder.Return();
        return _request.Value.Length;
    }

    private void WriteSpec(byte opcode, byte flags, string path, byte[] value)
    {
        var pathBytes = Encoding.UTF8.GetBytes(path);
        var span = _request.GetSpan(8 + pathBytes.Length + value.Length);
        (span[0], span[1]) = (opcode, flags);
        BinaryPrimitives.WriteUInt16BigEndian(span[2..], (ushort)pathBytes.Length);
        BinaryPrimitives.WriteUInt32BigEndian(span[4..], (uint)value.Length);
        pathBytes.CopyTo(span[8..]);
        value.CopyTo(span[(8 + pathBytes.Length)..]);
        _request.Advance(8 + pathBytes.Length + value.Length);
    }
}
