using System.Buffers.Binary;
using System.Text;
using BenchmarkDotNet.Attributes;
using Tern.Client;
using Tern.Client.Protocol;
using Tern.Client.Scan;
using Tern.Client.Transcoders;

namespace Tern.Benchmarks.Scan;

/// <summary>
/// What a range scan costs Tern.Client per item: one continue answer frame of 50 items, as ternd
/// sends them (16-byte keys; documents of 100-byte JSON values with their 25 bytes of metadata),
/// copied out of the receive buffer as the continue operation copies it, then parsed into scan
/// results. Allocated / 50 is the bytes per item: the result object, its key string, and its
/// share of the frame's copy, which the documents' content points into.
/// </summary>
[MemoryDiagnoser]
public class ScanFrameBenchmarks
{
    private const int Items = 50;

    private readonly List<IScanResult> _into = new(Items);
    private byte[] _documents = [];
    private byte[] _keys = [];

    [GlobalSetup]
    public void Setup()
    {
        var documents = new List<byte>();
        var keys = new List<byte>();
        var value = Encoding.UTF8.GetBytes("{\"name\":\"user\",\"n\":12345,\"pad\":\"" + new string('x', 68) + "\"}");
        for (var i = 0; i < Items; i++)
        {
            var key = Encoding.UTF8.GetBytes($"user::{i:D10}");
            var meta = new byte[25];
            BinaryPrimitives.WriteUInt32BigEndian(meta, DocumentFlags.Json);
            BinaryPrimitives.WriteUInt64BigEndian(meta.AsSpan(8), (ulong)i + 1);
            BinaryPrimitives.WriteUInt64BigEndian(meta.AsSpan(16), 0x1234_5678_9abc_def0UL + (ulong)i);
            meta[24] = (byte)Datatype.Json;
            documents.AddRange(meta);
            documents.Add((byte)key.Length);
            documents.AddRange(key);
            documents.Add((byte)value.Length); // 100 bytes: one LEB128 byte
            documents.AddRange(value);
            keys.Add((byte)key.Length);
            keys.AddRange(key);
        }
        _documents = [.. documents];
        _keys = [.. keys];
    }

    [Benchmark(Description = "50 documents")]
    public int Documents()
    {
        _into.Clear();
        ScanFrame.Read(ScanFrame.DocumentsLayout, _documents.AsSpan().ToArray(), JsonTranscoder.Default, _into);
        return _into.Count;
    }

    [Benchmark(Description = "50 keys (ids only)")]
    public int Keys()
    {
        _into.Clear();
        ScanFrame.Read(ScanFrame.KeysLayout, _keys.AsSpan().ToArray(), JsonTranscoder.Default, _into);
        return _into.Count;
    }
}
