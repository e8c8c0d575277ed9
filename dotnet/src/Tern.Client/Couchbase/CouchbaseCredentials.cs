using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Couchbase;

/// <summary>
/// The user name and password of a couchbase:// cluster and the SASL mechanisms they may be sent
/// with: SCRAM only (strongest first), unless PLAIN, which shows the password to the network, was enabled.
/// </summary>
internal sealed class CouchbaseCredentials
{
    private static readonly string[] ScramByStrength = ["SCRAM-SHA512", "SCRAM-SHA256", "SCRAM-SHA1"];

    public CouchbaseCredentials(string userName, string password, bool allowPlain)
    {
        UserName = userName;
        Password = password;
        AllowPlain = allowPlain;
        SaltedPasswords = new SaltedPasswordCache(password);
    }

    /// <summary>Every connection of these credentials derives the SCRAM salted password once.</summary>
    public SaltedPasswordCache SaltedPasswords { get; }

    public string UserName { get; }

    public string Password { get; }

    public bool AllowPlain { get; }

    /// <summary>The mechanism tried before the server's list is known.</summary>
    public string Preferred => ScramByStrength[0];

    /// <summary>The strongest mechanism both sides accept; throws naming what the server offered when there is none.</summary>
    public string Choose(IReadOnlyCollection<string> offered, string endpoint)
    {
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
