using System.Text;
using Tern.Client.Couchbase;
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
    public static async Task AuthenticateAsync(RawConnection connection, ServerAddress server, string user, string password,
        CancellationToken cancellationToken)
    {
        var offered = await connection.AskAsync(Opcode.SaslListMechs, "", default, cancellationToken);
        string[] names = offered.Status == ResponseStatus.Success
            ? Encoding.UTF8.GetString(offered.Value).Split(' ', StringSplitOptions.RemoveEmptyEntries)
            : [];
        // The SDK's own SASL pieces: the same mechanism choice (never PLAIN here) and SCRAM client.
        var credentials = new CouchbaseCredentials(user, password, allowPlain: false);
        var mechanism = credentials.Choose(names, server.ToString());
        var sasl = SaslSession.Start(mechanism, credentials);
        var first = await connection.AskAsync(Opcode.SaslAuth, mechanism, sasl.First, cancellationToken);
        if (first.Status != ResponseStatus.AuthContinue)
            throw credentials.Refused(server.ToString(), mechanism, first.Status);
        var final = await connection.AskAsync(Opcode.SaslStep, mechanism, sasl.Final(first.Value), cancellationToken);
        if (final.Status != ResponseStatus.Success)
            throw credentials.Refused(server.ToString(), mechanism, final.Status);
        // The server proves it knows the password too; otherwise this is not the server we meant.
        if (!sasl.Verify(final.Value))
            throw new AuthenticationFailureException($"{server} accepted user '{user}' but could not prove it knows the password ({mechanism})");
    }

    /// <summary>SELECT_BUCKET: refused when the bucket does not exist or the user may not use it (the server does not say which).</summary>
    public static async Task SelectBucketAsync(RawConnection connection, string bucket, CancellationToken cancellationToken)
    {
        var reply = await connection.AskAsync(Opcode.SelectBucket, bucket, default, cancellationToken);
        if (reply.Status != ResponseStatus.Success)
            throw new BucketNotFoundException(bucket, $"SELECT_BUCKET answered status 0x{(ushort)reply.Status:x2}");
    }
}
