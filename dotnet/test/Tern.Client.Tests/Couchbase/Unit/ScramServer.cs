using System.Security.Cryptography;
using System.Text;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// The server side of one SCRAM exchange (RFC 5802 / 7677 math, computed here from the password):
/// answers the client-first message with a challenge, then checks the client's proof and signs
/// the exchange, so a fake peer can authenticate the SDK as a real server would.
/// </summary>
internal sealed class ScramServer
{
    public const string ServerNonce = "fake-server-nonce";

    private static readonly byte[] Salt = Encoding.ASCII.GetBytes("tern-unit-salt");

    private readonly HashAlgorithmName _hash;
    private readonly string _password;
    private readonly int _iterations;
    private string _clientFirstBare = "";
    private string _serverFirst = "";

    public ScramServer(string mechanism, string password, int iterations = 64)
    {
        _hash = mechanism switch
        {
            "SCRAM-SHA512" => HashAlgorithmName.SHA512,
            "SCRAM-SHA256" => HashAlgorithmName.SHA256,
            "SCRAM-SHA1" => HashAlgorithmName.SHA1,
            _ => throw new ArgumentException($"not a SCRAM mechanism: {mechanism}", nameof(mechanism)),
        };
        _password = password;
        _iterations = iterations;
    }

    /// <summary>The user named in the client-first message.</summary>
    public string UserName { get; private set; } = "";

    public string ClientNonce { get; private set; } = "";

    /// <summary>Whether the client-final message proved knowledge of the password.</summary>
    public bool ProofValid { get; private set; }

    /// <summary>The server-first message answering "n,,n=user,r=nonce".</summary>
    public byte[] Challenge(ReadOnlyMemory<byte> clientFirst)
    {
        var text = Encoding.UTF8.GetString(clientFirst.Span);
        Assert.StartsWith("n,,", text);
        _clientFirstBare = text[3..];
        foreach (var attribute in _clientFirstBare.Split(','))
        {
            if (attribute.StartsWith("n=", StringComparison.Ordinal))
                UserName = attribute[2..];
            else if (attribute.StartsWith("r=", StringComparison.Ordinal))
                ClientNonce = attribute[2..];
        }
        Assert.NotEqual("", ClientNonce);
        _serverFirst = $"r={ClientNonce}{ServerNonce},s={Convert.ToBase64String(Salt)},i={_iterations}";
        return Encoding.UTF8.GetBytes(_serverFirst);
    }

    /// <summary>Checks "c=biws,r=..,p=proof" (see <see cref="ProofValid"/>) and returns "v=signature".</summary>
    public byte[] Sign(ReadOnlyMemory<byte> clientFinal)
    {
        var text = Encoding.UTF8.GetString(clientFinal.Span);
        var proofAt = text.LastIndexOf(",p=", StringComparison.Ordinal);
        Assert.True(proofAt > 0, $"client-final without a proof: {text}");
        var withoutProof = text[..proofAt];
        Assert.Equal($"c=biws,r={ClientNonce}{ServerNonce}", withoutProof);
        var proof = Convert.FromBase64String(text[(proofAt + 3)..]);

        var authMessage = Encoding.UTF8.GetBytes($"{_clientFirstBare},{_serverFirst},{withoutProof}");
        var hashLength = CryptographicOperations.HashData(_hash, ReadOnlySpan<byte>.Empty).Length;
        var salted = Rfc2898DeriveBytes.Pbkdf2(Encoding.UTF8.GetBytes(_password), Salt, _iterations, _hash, hashLength);
        var storedKey = CryptographicOperations.HashData(_hash, CryptographicOperations.HmacData(_hash, salted, "Client Key"u8));
        var clientSignature = CryptographicOperations.HmacData(_hash, storedKey, authMessage);
        var clientKey = new byte[proof.Length];
        for (var i = 0; i < clientKey.Length && i < clientSignature.Length; i++)
            clientKey[i] = (byte)(proof[i] ^ clientSignature[i]);
        ProofValid = CryptographicOperations.HashData(_hash, clientKey).AsSpan().SequenceEqual(storedKey);

        var serverKey = CryptographicOperations.HmacData(_hash, salted, "Server Key"u8);
        return Encoding.UTF8.GetBytes("v=" + Convert.ToBase64String(CryptographicOperations.HmacData(_hash, serverKey, authMessage)));
    }
}
