using System.Buffers.Binary;
using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>What a fake Couchbase peer answers with: binary replies, HELLO feature lists, an error map and cluster maps.</summary>
internal static class PeerReplies
{
    public const string User = "user";
    public const string Password = "pencil";

    /// <summary>A small error map of the server's own (revision 7), so that tests can tell it from the built-in one.</summary>
    public const string ErrorMapJson = """
        {"version":2,"revision":7,"errors":{
          "0":{"name":"SUCCESS","desc":"ok","attrs":["success"]},
          "9":{"name":"LOCKED","desc":"locked","attrs":["item-locked","item-only","retry-now"]},
          "20":{"name":"AUTH_ERROR","desc":"auth failed","attrs":["auth"]},
          "24":{"name":"EACCESS","desc":"no access","attrs":["auth"]},
          "86":{"name":"ETMPFAIL","desc":"try again","attrs":["temp","retry-now"]}
        }}
        """;

    /// <summary>A one-node map of 4 vbuckets, all active on "$HOST:<paramref name="port"/>".</summary>
    public static string MapJson(int port, long revision, string bucket) =>
        $$$"""
        {"rev":{{{revision}}},"name":"{{{bucket}}}","nodeLocator":"vbucket","bucketCapabilities":["collections"],
         "vBucketServerMap":{"hashAlgorithm":"CRC","numReplicas":0,"serverList":["$HOST:{{{port}}}"],
         "vBucketMap":[[0],[0],[0],[0]]}}
        """;

    /// <summary>Answers with a binary value (and extras, and datatype) rather than FakeServer's text.</summary>
    public static Task ReplyAsync(this FakeServer server, ReceivedRequest request, ResponseStatus status, byte[]? value = null,
        byte[]? extras = null, byte datatype = 0, ulong cas = 1) =>
        server.SendFrameAsync(Magic.Response, (byte)request.Opcode, (ushort)status, request.Opaque, cas, [], extras ?? [], [],
            value ?? [], datatype);

    public static Task ReplyAsync(this FakeServer server, ReceivedRequest request, ResponseStatus status, string value) =>
        server.ReplyAsync(request, status, Encoding.UTF8.GetBytes(value));

    /// <summary>The features a HELLO request (or answer) lists.</summary>
    public static HelloFeature[] Features(ReadOnlyMemory<byte> helloValue)
    {
        var features = new HelloFeature[helloValue.Length / 2];
        for (var i = 0; i < features.Length; i++)
            features[i] = (HelloFeature)BinaryPrimitives.ReadUInt16BigEndian(helloValue.Span[(i * 2)..]);
        return features;
    }

    public static byte[] HelloValue(IEnumerable<HelloFeature> features)
    {
        var list = features.ToArray();
        var value = new byte[list.Length * 2];
        for (var i = 0; i < list.Length; i++)
            BinaryPrimitives.WriteUInt16BigEndian(value.AsSpan(i * 2), (ushort)list[i]);
        return value;
    }

    /// <summary>A GET_COLLECTION_ID answer: manifest uid (u64) then the collection id (u32) in the extras.</summary>
    public static byte[] CollectionIdExtras(uint id, ulong manifest = 1)
    {
        var extras = new byte[12];
        BinaryPrimitives.WriteUInt64BigEndian(extras, manifest);
        BinaryPrimitives.WriteUInt32BigEndian(extras.AsSpan(8), id);
        return extras;
    }

    public static string Text(ReadOnlyMemory<byte> bytes) => Encoding.UTF8.GetString(bytes.Span);

    /// <summary>A key as sent in a collection: the LEB128 id, then the key.</summary>
    public static byte[] PrefixedKey(uint collectionId, string key)
    {
        var prefix = new byte[Leb128.MaxLength];
        var length = Leb128.Write(prefix, collectionId);
        return [.. prefix.AsSpan(0, length), .. Encoding.UTF8.GetBytes(key)];
    }
}
