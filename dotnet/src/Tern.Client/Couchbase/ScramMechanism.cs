namespace Tern.Client.Couchbase;

/// <summary>The SCRAM hash a SASL exchange uses (RFC 5802 with SHA-1, RFC 7677 with SHA-256, and SHA-512).</summary>
public enum ScramMechanism
{
    Sha1,
    Sha256,
    Sha512,
}

/// <summary>SASL mechanism names of <see cref="ScramMechanism"/>, as Couchbase spells them (no dash before the digits).</summary>
public static class ScramMechanismNames
{
    /// <summary>"SCRAM-SHA1", "SCRAM-SHA256" or "SCRAM-SHA512": what SASL_LIST_MECHS lists and SASL_AUTH takes.</summary>
    public static string WireName(this ScramMechanism mechanism) => mechanism switch
    {
        ScramMechanism.Sha1 => "SCRAM-SHA1",
        ScramMechanism.Sha256 => "SCRAM-SHA256",
        ScramMechanism.Sha512 => "SCRAM-SHA512",
        _ => throw new ArgumentOutOfRangeException(nameof(mechanism), mechanism, "not a SCRAM mechanism"),
    };

    /// <summary>
    /// The mechanism whose wire name is exactly <paramref name="wireName"/> (SASL names are
    /// upper case; anything else, e.g. "SCRAM-SHA-256" or "PLAIN", is not one of ours).
    /// </summary>
    public static bool TryParse(string wireName, out ScramMechanism mechanism)
    {
        switch (wireName)
        {
            case "SCRAM-SHA1":
                mechanism = ScramMechanism.Sha1;
                return true;
            case "SCRAM-SHA256":
                mechanism = ScramMechanism.Sha256;
                return true;
            case "SCRAM-SHA512":
                mechanism = ScramMechanism.Sha512;
                return true;
            default:
                mechanism = default;
                return false;
        }
    }
}
