using System.Buffers;
using System.Buffers.Text;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Tern.Client.Exceptions;

namespace Tern.Client.Couchbase;

/// <summary>
/// The client side of one SCRAM exchange (RFC 5802, without channel binding: gs2 header "n,,"),
/// as Couchbase runs it over SASL_AUTH / SASL_STEP: <see cref="ClientFirst"/>, then
/// <see cref="ClientFinal"/> on the server's challenge, then <see cref="VerifyServerFinal"/> on
/// the server's last message, which proves the server knew the password too. One instance
/// serves one exchange and is not thread-safe. User names are not SASLprep-normalised.
/// </summary>
internal sealed class ScramClient
{
    /// <summary>
    /// The highest iteration count accepted from a server: the count comes from the peer, and an
    /// absurd one would stall the connecting thread in PBKDF2 (servers use thousands).
    /// </summary>
    public const int MaxIterations = 1_000_000;

    private const string Gs2Header = "n,,";
    private const int GeneratedNonceBytes = 24;

    // Strict: a server message that is not UTF-8 cannot be put back into the AuthMessage byte for byte.
    private static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    private readonly ScramMechanism _mechanism;
    private readonly string _password;
    private readonly string _clientNonce;
    private readonly string _clientFirstBare;
    private byte[]? _expectedServerSignature;
    private readonly SaltedPasswordCache? _saltedPasswords;

    /// <param name="mechanism">The hash; must be one the server listed.</param>
    /// <param name="user">The user name, unescaped.</param>
    /// <param name="password">The password.</param>
    /// <param name="clientNonce">The client nonce; null draws 24 random bytes, in base64. Tests pass the RFCs' nonces.</param>
    /// <param name="saltedPasswords">Shares the PBKDF2 result between connections of the same credentials; null derives it each time.</param>
    public ScramClient(ScramMechanism mechanism, string user, string password, string? clientNonce = null,
        SaltedPasswordCache? saltedPasswords = null)
    {
        _saltedPasswords = saltedPasswords;
        _ = mechanism.WireName(); // rejects values outside the enum before any work is done
        _mechanism = mechanism;
        _password = password;
        _clientNonce = clientNonce ?? Convert.ToBase64String(RandomNumberGenerator.GetBytes(GeneratedNonceBytes));
        _clientFirstBare = $"n={EscapeUser(user)},r={_clientNonce}";
    }

    /// <summary>The first message: "n,,n=&lt;user&gt;,r=&lt;client nonce&gt;" in UTF-8.</summary>
    public byte[] ClientFirst() => Encoding.UTF8.GetBytes(Gs2Header + _clientFirstBare);

    /// <summary>
    /// Answers the server's challenge "r=&lt;nonce&gt;,s=&lt;salt&gt;,i=&lt;iterations&gt;" with
    /// "c=biws,r=&lt;nonce&gt;,p=&lt;proof&gt;", and keeps the signature the server must send back.
    /// Throws <see cref="AuthenticationFailureException"/> when the challenge is malformed, its
    /// nonce does not extend ours, or it asks for a mandatory extension.
    /// </summary>
    public byte[] ClientFinal(ReadOnlySpan<byte> serverFirst)
    {
        var serverFirstText = DecodeServerMessage(serverFirst, "server-first");
        var (nonce, salt, iterations) = ParseServerFirst(serverFirstText);

        var hashName = HashName();
        var saltedPassword = _saltedPasswords?.Get(_mechanism, salt, iterations, hashName, HashLength()) ??
            Rfc2898DeriveBytes.Pbkdf2(Encoding.UTF8.GetBytes(_password), salt, iterations, hashName, HashLength());
        var clientKey = Hmac(saltedPassword, "Client Key"u8);
        var storedKey = Hash(clientKey);

        // "biws" is base64("n,,"): the gs2 header, echoed to show it was not tampered with.
        var clientFinalWithoutProof = $"c=biws,r={nonce}";
        var authMessage = Encoding.UTF8.GetBytes($"{_clientFirstBare},{serverFirstText},{clientFinalWithoutProof}");
        var clientSignature = Hmac(storedKey, authMessage);
        var proof = new byte[clientKey.Length];
        for (var i = 0; i < proof.Length; i++)
            proof[i] = (byte)(clientKey[i] ^ clientSignature[i]);

        var serverKey = Hmac(saltedPassword, "Server Key"u8);
        _expectedServerSignature = Hmac(serverKey, authMessage);
        return Encoding.UTF8.GetBytes($"{clientFinalWithoutProof},p={Convert.ToBase64String(proof)}");
    }

    /// <summary>
    /// True iff the server's last message is "v=&lt;signature&gt;" with the signature
    /// <see cref="ClientFinal"/> expects; false for "e=&lt;error&gt;" or anything malformed.
    /// Throws <see cref="InvalidOperationException"/> before <see cref="ClientFinal"/>.
    /// </summary>
    public bool VerifyServerFinal(ReadOnlySpan<byte> serverFinal)
    {
        var expected = _expectedServerSignature
            ?? throw new InvalidOperationException("VerifyServerFinal before ClientFinal");
        // Extensions may follow the verifier after a comma; only the verifier matters here.
        var comma = serverFinal.IndexOf((byte)',');
        var verifier = comma < 0 ? serverFinal : serverFinal[..comma];
        if (!verifier.StartsWith("v="u8))
            return false;
        // Room for the largest hash: a longer verifier cannot match and decodes as DestinationTooSmall.
        Span<byte> signature = stackalloc byte[SHA512.HashSizeInBytes];
        if (Base64.DecodeFromUtf8(verifier[2..], signature, out _, out var written) != OperationStatus.Done)
            return false;
        return CryptographicOperations.FixedTimeEquals(signature[..written], expected);
    }

    /// <summary>RFC 5802 saslname: ',' and '=' would end the attribute, so they travel as =2C and =3D.</summary>
    internal static string EscapeUser(string user) => user.Replace("=", "=3D").Replace(",", "=2C");

    private (string Nonce, byte[] Salt, int Iterations) ParseServerFirst(string message)
    {
        string? nonce = null, salt = null, iterations = null;
        foreach (var attribute in message.Split(','))
        {
            if (attribute.Length < 2 || attribute[1] != '=')
                throw Fail($"server-first attribute \"{attribute}\" is not of the form x=value");
            var value = attribute[2..];
            switch (attribute[0])
            {
                case 'r': nonce ??= value; break;
                case 's': salt ??= value; break;
                case 'i': iterations ??= value; break;
                case 'm': throw Fail("server-first asks for a mandatory extension this client does not support");
                default: break; // optional extensions are ignored, as RFC 5802 allows
            }
        }
        if (nonce is null || salt is null || iterations is null)
            throw Fail($"server-first lacks {(nonce is null ? "the nonce (r=)" : salt is null ? "the salt (s=)" : "the iteration count (i=)")}");
        if (nonce.Length <= _clientNonce.Length || !nonce.StartsWith(_clientNonce, StringComparison.Ordinal))
            throw Fail("server-first's nonce does not extend the client nonce");
        if (!int.TryParse(iterations, NumberStyles.None, CultureInfo.InvariantCulture, out var count)
            || count < 1 || count > MaxIterations)
            throw Fail($"server-first's iteration count \"{iterations}\" is not in 1..{MaxIterations}");
        byte[] saltBytes;
        try
        {
            saltBytes = Convert.FromBase64String(salt);
        }
        catch (FormatException e)
        {
            throw Fail("server-first's salt is not base64", e);
        }
        if (saltBytes.Length == 0)
            throw Fail("server-first's salt is empty");
        return (nonce, saltBytes, count);
    }

    private static string DecodeServerMessage(ReadOnlySpan<byte> message, string what)
    {
        try
        {
            return StrictUtf8.GetString(message);
        }
        catch (DecoderFallbackException e)
        {
            throw Fail($"{what} is not UTF-8", e);
        }
    }

    private static AuthenticationFailureException Fail(string message, Exception? inner = null) =>
        new($"SCRAM: {message}", inner);

    private HashAlgorithmName HashName() => _mechanism switch
    {
        ScramMechanism.Sha1 => HashAlgorithmName.SHA1,
        ScramMechanism.Sha256 => HashAlgorithmName.SHA256,
        _ => HashAlgorithmName.SHA512,
    };

    private int HashLength() => _mechanism switch
    {
        ScramMechanism.Sha1 => SHA1.HashSizeInBytes,
        ScramMechanism.Sha256 => SHA256.HashSizeInBytes,
        _ => SHA512.HashSizeInBytes,
    };

    private byte[] Hmac(byte[] key, ReadOnlySpan<byte> data) => _mechanism switch
    {
        ScramMechanism.Sha1 => HMACSHA1.HashData(key, data),
        ScramMechanism.Sha256 => HMACSHA256.HashData(key, data),
        _ => HMACSHA512.HashData(key, data),
    };

    private byte[] Hash(byte[] data) => _mechanism switch
    {
        ScramMechanism.Sha1 => SHA1.HashData(data),
        ScramMechanism.Sha256 => SHA256.HashData(data),
        _ => SHA512.HashData(data),
    };
}
