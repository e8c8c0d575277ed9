namespace Tern.Cli;

/// <summary>
/// Where a command's documents are: the server, who logs in to it, the bucket and the collection.
/// Resolved from the command line before anything connects, so a contradiction (credentials for a
/// server that takes none, a collection tern:// cannot reach) is a usage error, not a failed call.
/// </summary>
public sealed record Target(ServerAddress Server, string? User, string? Password, string Bucket, string Scope, string Collection,
    TlsOptions? Tls = null)
{
    public const string DefaultBucket = "default";

    public const string DefaultScope = "_default";

    public const string DefaultCollection = "_default";

    /// <summary>tern:// or memcached:// to bucket default's default collection, with no credentials.</summary>
    public static Target Classic(ServerAddress server) => new(server, null, null, DefaultBucket, DefaultScope, DefaultCollection);

    /// <summary>`--collection` as written, e.g. `app.users`.</summary>
    public string CollectionPath => $"{Scope}.{Collection}";

    public bool IsDefaultCollection => Scope == DefaultScope && Collection == DefaultCollection;

    /// <summary>
    /// The target <paramref name="args"/> name on <paramref name="server"/>. couchbase:// needs a user
    /// and a password (options or environment), and so does couchbases:// unless a client
    /// certificate (--cert) logs in; the other schemes take none and have only bucket `default`'s
    /// default collection, so naming another is a usage error.
    /// </summary>
    public static Target Resolve(CliArguments args, ServerAddress server)
    {
        var bucket = args.Option("bucket") ?? DefaultBucket;
        if (bucket.Length == 0)
            throw new UsageException("--bucket needs a bucket name");
        var (scope, collection) = ParseCollection(args.Option("collection"));
        var tls = TlsOptions.Resolve(args, server);
        if (tls is { LogsInByCertificate: true })
        {
            if (args.Option("user") is not null || args.Option("password") is not null)
                throw new UsageException("--cert logs in as the user the certificate names: drop -u/--user and -p/--password");
            return new Target(server, null, null, bucket, scope, collection, tls);
        }
        if (server.IsCouchbase)
        {
            var user = args.User ?? throw new UsageException(
                $"{server.ConnectionString} needs credentials: give -u USER and -p PASSWORD (or set $TERN_USER and $TERN_PASSWORD)" +
                (server.IsTls ? ", or a client certificate: --cert FILE --key FILE" : ""));
            var password = args.Password ?? throw new UsageException(
                $"{server.ConnectionString} needs the password of user '{user}': give -p PASSWORD or set $TERN_PASSWORD");
            return new Target(server, user, password, bucket, scope, collection, tls);
        }
        // Only the options: $TERN_USER and $TERN_PASSWORD may stay set while tern talks to a tern:// server.
        if (args.Option("user") is not null || args.Option("password") is not null)
            throw new UsageException($"-u/--user and -p/--password need a couchbase:// server; {server.Scheme}:// does not authenticate");
        var target = Classic(server);
        if (bucket != DefaultBucket)
            throw new UsageException($"--bucket '{bucket}' needs a couchbase:// server; {server.Scheme}:// has only bucket '{DefaultBucket}'");
        if (scope != DefaultScope || collection != DefaultCollection)
            throw new UsageException(
                $"--collection '{scope}.{collection}' needs a couchbase:// server; {server.Scheme}:// has only the default collection");
        return target;
    }

    private static (string Scope, string Collection) ParseCollection(string? text)
    {
        if (text is null)
            return (DefaultScope, DefaultCollection);
        var parts = text.Split('.');
        return parts is [{ Length: > 0 } scope, { Length: > 0 } collection]
            ? (scope, collection)
            : throw new UsageException($"--collection '{text}': expected SCOPE.COLLECTION, e.g. app.users or _default._default");
    }
}
