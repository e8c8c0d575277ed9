using System.Text;

namespace Tern.Client.Couchbase;

/// <summary>One SASL exchange, SCRAM or PLAIN, seen as its two client messages and the server's proof.</summary>
internal sealed class SaslSession
{
    private readonly ScramClient? _scram;
    private readonly byte[] _first;

    private SaslSession(ScramClient? scram, byte[] first)
    {
        _scram = scram;
        _first = first;
    }

    public static SaslSession Start(string mechanism, CouchbaseCredentials credentials)
    {
        if (mechanism == "PLAIN")
            return new SaslSession(null, Encoding.UTF8.GetBytes($"\0{credentials.UserName}\0{credentials.Password}"));
        if (!ScramMechanismNames.TryParse(mechanism, out var scram))
            throw new ArgumentException($"unknown SASL mechanism {mechanism}", nameof(mechanism));
        var client = new ScramClient(scram, credentials.UserName, credentials.Password, saltedPasswords: credentials.SaltedPasswords);
        return new SaslSession(client, client.ClientFirst());
    }

    /// <summary>The SASL_AUTH value.</summary>
    public byte[] First => _first;

    /// <summary>The SASL_STEP value, answering the server's challenge.</summary>
    public byte[] Final(byte[] challenge) => _scram?.ClientFinal(challenge) ?? [];

    /// <summary>Whether the server's final message proves it knows the password (PLAIN has none to check).</summary>
    public bool Verify(byte[] serverFinal) => _scram?.VerifyServerFinal(serverFinal) ?? true;
}
