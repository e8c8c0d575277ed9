namespace Tern.Cli;

/// <summary>The help text, shown by `tern --help` and after a usage error.</summary>
public static class Usage
{
    public static readonly string Text = $"""
        usage: tern COMMAND [ARGS] [--server HOST:PORT | --server couchbase://HOST -u USER -p PASSWORD
                                    [--bucket NAME] [--collection SCOPE.COLL]] [--timeout SECONDS]

        commands:
          get KEY                          print the value of KEY
          set KEY [VALUE] [--expiry S]     store VALUE (or standard input) under KEY
          rm KEY                           remove KEY
          incr KEY [--by N] [--initial N]  add N (default 1) to a counter; prints the new value
                   [--no-create]           (a missing counter starts at --initial, default N)
          decr KEY [--by N] [--initial N]  subtract N, stopping at 0
          touch KEY SECONDS                set KEY's expiry (0: never expires)
          stats [GROUP]                    print the server's statistics
          bench [--ops N] [--concurrency C] [--value-size B]
                                           quick throughput and latency check
                                           (upsert, then get; mean, p50, p99, max)

        options:
          --server HOST:PORT   the server (default {ServerAddress.Default}, or $TERN_SERVER)
          --server URL         a connection string: couchbase://HOST[:PORT] (logs in; buckets and
                               collections), tern://HOST[:PORT] (same as HOST:PORT) or
                               memcached://HOST[:PORT]; the port defaults to 11210 (11211 for memcached)
          -u, --user USER      who logs in over couchbase:// (or $TERN_USER)
          -p, --password PASSWORD
                               their password (or $TERN_PASSWORD: set only that, and the
                               password stays out of `ps` and the shell history)
          --bucket NAME        the bucket (default '{Target.DefaultBucket}'; others need couchbase://)
          --collection SCOPE.COLL
                               the collection, e.g. app.users (default _default._default;
                               others need couchbase://)
          --timeout SECONDS    per-operation and connect timeout (default 2.5)

        exit codes: 0 success, 1 the server refused (e.g. not found), 2 bad command line,
                    3 server unreachable, connection lost or timed out,
                    4 authentication failed (wrong user or password),
                    5 no such bucket or collection (or the user may not use it)
        """;
}
