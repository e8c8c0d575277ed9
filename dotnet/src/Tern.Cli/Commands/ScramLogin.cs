using System.Security.Cryptography;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Cli.Commands;

/// <summary>
/// Logs a <see cref="RawConnection"/> in with SASL SCRAM (RFC 5802), the strongest of SHA-512,
/// SHA-256 and SHA-1 the server offers, and selects a bucket: what the SDK does on its own
/// connections over couchbase://. PLAIN is never used, so the password never crosses the wire.
/// </summary>
internal static class ScramLogin
{
    private const byte ListMechanismsOpcode = 0x20;
    private const byte AuthOpcode = 0x21;
    private const byte StepOpcode = 0x22;
    private const byte SelectBucketOpcode = 0x89;

    /// <summary>More rounds than any real server uses; a server asking for more is refused, not obeyed for minutes.</summary>
    private const int MaxIterations = 1_000_000;

    private static readonly (string Name, HashAlgorithmName Hash, int Length)[] StrongestFirst =
    [
        ("SCRAM-SHA512", HashAlgorithmName.SHA512, 64),
        ("SCRAM-SHA256", HashAlgorithmName.SHA256, 32),
        ("SCRAM-SHA1", HashAlgorithmName.SHA1, 20),
    ];

    public static async Task AuthenticateAsync(RawConnection connection, ServerAddress server, string user, string password,
        CancellationToken cancellationToken)
    {
        var offered = await connection.AskAsync(ListMechanismsOpcode, "", default, cancellationToken);
        string[] names = offered.Status == ResponseStatus.Success
            ? Encoding.UTF8.GetString(offered.Value).Split(' ', StringSplitOptions.RemoveEmptyEntries)
            : [];
        var mechanism = StrongestFirst.FirstOrDefault(m => names.Contains(m.Name));
        if (mechanism.Name is null)
            throw new AuthenticationFailureException(
                $"{server} offers no SCRAM mechanism (it offers [{string.Join(' ', names)}]); tern does not send passwords in clear text");

        var clientNonce = Convert.ToBase64String(RandomNumberGenerator.GetBytes(24));
        var clientFirstBare = $"n={SaslName(user)},r={clientNonce}";
        var first = await connection.AskAsync(AuthOpcode, mechanism.Name, Encoding.UTF8.GetBytes("n,," + clientFirstBare), cancellationToken);
        if (first.Status != ResponseStatus.AuthContinue)
            throw Refused(server, user, mechanism.Name, first.Status);

        var serverFirst = Encoding.UTF8.GetString(first.Value);
        var fields = Fields(serverFirst);
        if (!fields.TryGetValue('r', out var nonce) || !nonce.StartsWith(clientNonce, StringComparison.Ordinal) || nonce.Length == clientNonce.Length
            || !fields.TryGetValue('s', out var saltText) || !TryBase64(saltText, out var salt)
            || !fields.TryGetValue('i', out var iterationsText) || !int.TryParse(iterationsText, out var iterations)
            || iterations is < 1 or > MaxIterations)
            throw new AuthenticationFailureException($"{server} sent a SCRAM challenge tern cannot follow: '{serverFirst}'");

        var salted = Rfc2898DeriveBytes.Pbkdf2(Encoding.UTF8.GetBytes(password), salt, iterations, mechanism.Hash, mechanism.Length);
        var clientKey = CryptographicOperations.HmacData(mechanism.Hash, salted, "Client Key"u8);
        var storedKey = CryptographicOperations.HashData(mechanism.Hash, clientKey);
        var clientFinalBare = $"c={Convert.ToBase64String("n,,"u8)},r={nonce}";
        var authMessage = Encoding.UTF8.GetBytes($"{clientFirstBare},{serverFirst},{clientFinalBare}");
        var proof = CryptographicOperations.HmacData(mechanism.Hash, storedKey, authMessage);
        for (var i = 0; i < proof.Length; i++)
            proof[i] ^= clientKey[i];

        var final = await connection.AskAsync(StepOpcode, mechanism.Name,
            Encoding.UTF8.GetBytes($"{clientFinalBare},p={Convert.ToBase64String(proof)}"), cancellationToken);
        if (final.Status != ResponseStatus.Success)
            throw Refused(server, user, mechanism.Name, final.Status);

        // The server proves it knows the password too; otherwise this is not the server we meant.
        var serverKey = CryptographicOperations.HmacData(mechanism.Hash, salted, "Server Key"u8);
        var expected = CryptographicOperations.HmacData(mechanism.Hash, serverKey, authMessage);
        if (!Fields(Encoding.UTF8.GetString(final.Value)).TryGetValue('v', out var signatureText)
            || !TryBase64(signatureText, out var signature)
            || !CryptographicOperations.FixedTimeEquals(signature, expected))
            throw new AuthenticationFailureException($"{server} accepted user '{user}' but could not prove it knows the password ({mechanism.Name})");
    }

    /// <summary>SELECT_BUCKET: refused when the bucket does not exist or the user may not use it (the server does not say which).</summary>
    public static async Task SelectBucketAsync(RawConnection connection, string bucket, CancellationToken cancellationToken)
    {
        var reply = await connection.AskAsync(SelectBucketOpcode, bucket, default, cancellationToken);
        if (reply.Status != ResponseStatus.Success)
            throw new BucketNotFoundException(bucket, $"SELECT_BUCKET answered status 0x{(ushort)reply.Status:x2}");
    }

    private static AuthenticationFailureException Refused(ServerAddress server, string user, string mechanism, ResponseStatus status) =>
        new($"authentication of user '{user}' at {server} failed ({mechanism}, status 0x{(ushort)status:x2}): " +
            "wrong user name or password, or the user does not exist");

    /// <summary>RFC 5802's escaping of the user name: ',' and '=' are the syntax.</summary>
    private static string SaslName(string user) => user.Replace("=", "=3D", StringComparison.Ordinal).Replace(",", "=2C", StringComparison.Ordinal);

    /// <summary>`a=...,b=...` as attribute → value; the first of a repeated attribute wins.</summary>
    private static Dictionary<char, string> Fields(string message)
    {
        var fields = new Dictionary<char, string>();
        foreach (var part in message.Split(','))
        {
            if (part.Length >= 2 && part[1] == '=')
                fields.TryAdd(part[0], part[2..]);
        }
        return fields;
    }

    private static bool TryBase64(string text, out byte[] bytes)
    {
        var buffer = new byte[text.Length];
        if (Convert.TryFromBase64String(text, buffer, out var written))
        {
            bytes = buffer[..written];
            return true;
        }
        bytes = [];
        return false;
    }
}
