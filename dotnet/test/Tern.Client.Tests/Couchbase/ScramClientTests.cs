using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;

namespace Tern.Client.Tests.Couchbase;

/// <summary>ScramClient against the RFCs' published exchanges, and its rejection of malformed or forged server messages.</summary>
public class ScramClientTests
{
    private const string Rfc5802Nonce = "fyko+d2lbbFgONRv9qkxdawL";
    private const string Rfc5802ServerFirst = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096";

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    private static string Text(byte[] bytes) => Encoding.UTF8.GetString(bytes);

    [Fact]
    public void Rfc5802Sha1Example()
    {
        var scram = new ScramClient(ScramMechanism.Sha1, "user", "pencil", Rfc5802Nonce);
        Assert.Equal("n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", Text(scram.ClientFirst()));
        Assert.Equal(
            "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
            Text(scram.ClientFinal(Utf8(Rfc5802ServerFirst))));
        Assert.True(scram.VerifyServerFinal(Utf8("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")));
    }

    [Fact]
    public void Rfc7677Sha256Example()
    {
        var scram = new ScramClient(ScramMechanism.Sha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
        Assert.Equal("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", Text(scram.ClientFirst()));
        Assert.Equal(
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
            Text(scram.ClientFinal(Utf8("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))));
        Assert.True(scram.VerifyServerFinal(Utf8("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")));
    }

    /// <summary>No RFC has a SHA-512 example: these values come from Python's hashlib and hmac (which reproduce the RFC 5802 example).</summary>
    [Fact]
    public void Sha512ExampleComputedWithPython()
    {
        var scram = new ScramClient(ScramMechanism.Sha512, "Administrator", "password", "tern512clientnonce");
        Assert.Equal(
            "c=biws,r=tern512clientnonceSERVERpart+/=x,p=eXsMDVmoATAEW6/eH6yWKKD9YXyZ5fiNcmgNEuBP0eE9hAi/03aUUNIArKmCb0qik12au6tDaba9c3aJelD6wQ==",
            Text(scram.ClientFinal(Utf8("r=tern512clientnonceSERVERpart+/=x,s=MDEyMzQ1Njc4OWFiY2RlZg==,i=10000"))));
        Assert.True(scram.VerifyServerFinal(Utf8(
            "v=OgR0jnVcB2iTRygID3sBgu06Y8szmMwZwbSkM3I3/QwexiP0opnAF/Nr0CCJryICDIKrwR4KT1xIF+Afs7RU7Q==")));
    }

    [Theory]
    [InlineData("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=,x=extension", true)]
    [InlineData("v=rmF9pqV8S7suAoZWja4dJRkFsKA=", false)] // last byte of the signature differs
    [InlineData("v=rmF9pqV8S7suAoZWja4dJRkF", false)] // a prefix of it
    [InlineData("v=rmF9pqV8S7suAoZWja4dJRkFsKQrmF9pqV8S7suAoZWja4dJRkFsKQ=", false)]
    [InlineData("v=", false)]
    [InlineData("v=!!notbase64!!", false)]
    [InlineData("e=invalid-proof", false)]
    [InlineData("", false)]
    public void ServerFinalMustCarryTheExpectedSignature(string serverFinal, bool accepted)
    {
        var scram = new ScramClient(ScramMechanism.Sha1, "user", "pencil", Rfc5802Nonce);
        scram.ClientFinal(Utf8(Rfc5802ServerFirst));
        Assert.Equal(accepted, scram.VerifyServerFinal(Utf8(serverFinal)));
    }

    [Fact]
    public void AServerThatDoesNotKnowThePasswordFailsVerification()
    {
        var scram = new ScramClient(ScramMechanism.Sha1, "user", "not pencil", Rfc5802Nonce);
        Assert.NotEqual(
            "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
            Text(scram.ClientFinal(Utf8(Rfc5802ServerFirst))));
        Assert.False(scram.VerifyServerFinal(Utf8("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")));
    }

    [Fact]
    public void VerifyingBeforeTheChallengeIsAnError()
    {
        var scram = new ScramClient(ScramMechanism.Sha1, "user", "pencil", Rfc5802Nonce);
        Assert.Throws<InvalidOperationException>(() => scram.VerifyServerFinal(Utf8("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")));
    }

    [Theory]
    [InlineData("r=someoneElsesNonce3rfcNHYJ,s=QSXCR+Q6sek8bf92,i=4096", "nonce")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL,s=QSXCR+Q6sek8bf92,i=4096", "nonce")] // no server part
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,i=4096", "salt")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92", "iteration")]
    [InlineData("s=QSXCR+Q6sek8bf92,i=4096", "nonce")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=0", "iteration")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=-1", "iteration")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=many", "iteration")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=1000001", "iteration")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=99999999999", "iteration")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=Q$X!,i=4096", "base64")]
    [InlineData("r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=,i=4096", "salt")]
    [InlineData("m=ext,r=fyko+d2lbbFgONRv9qkxdawL3rfc,s=QSXCR+Q6sek8bf92,i=4096", "mandatory extension")]
    [InlineData("hello", "x=value")]
    [InlineData("", "x=value")]
    public void MalformedServerFirstIsAnAuthenticationFailure(string serverFirst, string expected)
    {
        var scram = new ScramClient(ScramMechanism.Sha1, "user", "pencil", Rfc5802Nonce);
        var error = Assert.Throws<AuthenticationFailureException>(() => scram.ClientFinal(Utf8(serverFirst)));
        Assert.Contains(expected, error.Message);
    }

    [Fact]
    public void ServerFirstThatIsNotUtf8IsAnAuthenticationFailure()
    {
        var scram = new ScramClient(ScramMechanism.Sha1, "user", "pencil", Rfc5802Nonce);
        var bytes = Utf8(Rfc5802ServerFirst);
        bytes[5] = 0xff;
        var error = Assert.Throws<AuthenticationFailureException>(() => scram.ClientFinal(bytes));
        Assert.IsType<System.Text.DecoderFallbackException>(error.InnerException);
    }

    [Fact]
    public void UnknownOptionalAttributesAreIgnored()
    {
        var scram = new ScramClient(ScramMechanism.Sha1, "user", "pencil", Rfc5802Nonce);
        // Appended after i=, the extension becomes part of the AuthMessage, so only the proof changes.
        var final = Text(scram.ClientFinal(Utf8(Rfc5802ServerFirst + ",x=future")));
        Assert.StartsWith("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=", final);
    }

    [Theory]
    [InlineData("user", "user")]
    [InlineData("a,b", "a=2Cb")]
    [InlineData("a=b", "a=3Db")]
    [InlineData("=,=", "=3D=2C=3D")]
    [InlineData("ünï", "ünï")]
    public void UserNamesEscapeCommaAndEquals(string user, string onTheWire)
    {
        var scram = new ScramClient(ScramMechanism.Sha256, user, "pw", "nonce");
        Assert.Equal($"n,,n={onTheWire},r=nonce", Text(scram.ClientFirst()));
    }

    [Fact]
    public void GeneratedNoncesAre24RandomBytesInBase64()
    {
        var first = Text(new ScramClient(ScramMechanism.Sha1, "u", "p").ClientFirst());
        var second = Text(new ScramClient(ScramMechanism.Sha1, "u", "p").ClientFirst());
        var nonce = first["n,,n=u,r=".Length..];
        Assert.Equal(24, Convert.FromBase64String(nonce).Length);
        Assert.NotEqual(first, second);
    }

    [Theory]
    [InlineData(ScramMechanism.Sha1, "SCRAM-SHA1")]
    [InlineData(ScramMechanism.Sha256, "SCRAM-SHA256")]
    [InlineData(ScramMechanism.Sha512, "SCRAM-SHA512")]
    public void MechanismWireNamesRoundTrip(ScramMechanism mechanism, string wireName)
    {
        Assert.Equal(wireName, mechanism.WireName());
        Assert.True(ScramMechanismNames.TryParse(wireName, out var parsed));
        Assert.Equal(mechanism, parsed);
    }

    [Theory]
    [InlineData("SCRAM-SHA-256")]
    [InlineData("scram-sha256")]
    [InlineData("PLAIN")]
    [InlineData("")]
    public void OtherMechanismNamesDoNotParse(string wireName) =>
        Assert.False(ScramMechanismNames.TryParse(wireName, out _));
}
