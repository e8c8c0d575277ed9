using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Couchbase;

/// <summary>
/// The user name and password of a couchbase:// cluster and the SASL mechanisms they may be sent
/// with: SCRAM only (strongest first), unless PLAIN, which shows the password to the network, was
/// enabled; inside TLS PLAIN comes first, as the official SDKs send it. Or, with
/// <see cref="ByCertificate"/>, no SASL at all: the TLS client certificate names the user.
/// </summary>
internal sealed class CouchbaseCredentials
{
    private static readonly string[] ScramByStrength = ["SCRAM-SHA512", "SCRAM-SHA256", "SCRAM-SHA1"];

    public CouchbaseCredentials(string userName, string password, bool allowPlain, bool preferPlain = false)
    {
        UserName = userName;
        Password = password;
        AllowPlain = allowPlain || preferPlain;
        PreferPlain = preferPlain;
        SaltedPasswords = new SaltedPasswordCache(password);
    }

    /// <summary>A client certificate logs the connections in: bootstrap sends no SASL.</summary>
    public static CouchbaseCredentials Certificate() => new("(client certificate)", "", allowPlain: false) { ByCertificate = true };

    public bool ByCertificate { get; private init; }

    /// <summary>PLAIN before SCRAM: the connection is TLS, which hides the password (and PLAIN costs no round trip).</summary>
    public bool PreferPlain { get; }

    /// <summary>Every connection of these credentials derives the SCRAM salted password once.</summary>
    public SaltedPasswordCache SaltedPasswords { get; }

    public string UserName { get; }

    public string Password { get; }

    public bool AllowPlain { get; }

    /// <summary>The mechanism tried before the server's list is known.</summary>
    public string Preferred => PreferPlain ? "PLAIN" : ScramByStrength[0];

    /// <summary>The strongest mechanism both sides accept; throws naming what the server offered when there is none.</summary>
    public string Choose(IReadOnlyCollection<string> offered, string endpoint)
    {
        if (PreferPlain && offered.Contains("PLAIN"))
            return "PLAIN";
        foreach (var mechanism in ScramByStrength)
        {
            if (offered.Contains(mechanism))
                return mechanism;
        }
        if (AllowPlain && offered.Contains("PLAIN"))
            return "PLAIN";
        throw new AuthenticationFailureException(
            $"{endpoint} offers SASL mechanisms [{string.Join(' ', offered)}], none of which this client uses " +
            (AllowPlain ? "(SCRAM-SHA512/256/1, PLAIN)" : "(SCRAM-SHA512/256/1; PLAIN is off: set ClusterOptions.EnablePlainAuthentication)"));
    }

    public AuthenticationFailureException Refused(string endpoint, string mechanism, ResponseStatus status) =>
        new($"authentication of user '{UserName}' at {endpoint} failed ({mechanism}, status 0x{(ushort)status:x2}): " +
            "wrong user name or password, or the user does not exist");
}
