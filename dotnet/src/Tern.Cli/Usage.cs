namespace Tern.Cli;

/// <summary>The help text, shown by `tern --help` and after a usage error.</summary>
public static class Usage
{
    public static readonly string Text = $"""
        usage: tern COMMAND [ARGS] [--server HOST:PORT | --server couchbase[s]://HOST -u USER -p PASSWORD
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
                [--scan]                   then read them with a range scan (couchbase://)
          export --format lines|list --output FILE [--include-key FIELD] [--concurrency N]
                                           write the collection's JSON documents to FILE (- for
                                           standard output) as cbexport json does (couchbase://)
          import --format lines|list --input FILE --generate-key EXPR [--concurrency N]
                                           upsert FILE's documents (- for standard input) as
                                           cbimport json does, keyed by EXPR: static text,
                                           %field%, %a.b%, #MONO_INCR#, #MONO_INCR[N]#, #UUID#

        management (couchbase:// or couchbases:// only; over the server's management port):
          bucket list                      every bucket: type, RAM quota, flush, max TTL...
          bucket create NAME [--type couchbase|ephemeral|memcached] [--ram-mb N] [--flush]
                 [--max-ttl S] [--eviction valueOnly|fullEviction|noEviction|notRecentlyUsed]
                 [--durability none|majority|majorityAndPersistToActive|persistToMajority]
          bucket drop NAME                 drop the bucket and its documents
          bucket flush NAME                remove every document (the bucket needs --flush)
          collection list                  the scopes and collections of --bucket
          collection create SCOPE[.COLL] [--max-ttl S]
                                           create a scope, or a collection (and its scope)
          collection drop SCOPE[.COLL]     drop a collection, or a scope with its collections

        options:
          --server HOST:PORT   the server (default {ServerAddress.Default}, or $TERN_SERVER)
          --server URL         a connection string: couchbase://HOST[:PORT] (logs in; buckets and
                               collections), couchbases://HOST[:PORT] (the same over TLS),
                               tern://HOST[:PORT] (same as HOST:PORT) or memcached://HOST[:PORT];
                               the port defaults to 11210 (11207 for couchbases, 11211 for memcached)
          -u, --user USER      who logs in over couchbase:// (or $TERN_USER)
          -p, --password PASSWORD
                               their password (or $TERN_PASSWORD: set only that, and the
                               password stays out of `ps` and the shell history)
          --bucket NAME        the bucket (default '{Target.DefaultBucket}'; others need couchbase://)
          --collection SCOPE.COLL
                               the collection, e.g. app.users (default _default._default;
                               others need couchbase://)
          --cacert FILE        couchbases://: trust the CAs in this PEM file (default: the system's)
          --cert FILE --key FILE
                               couchbases://: log in with this client certificate (PEM) and key,
                               as the user it names (no -u/-p)
          --no-verify          couchbases://: do not check the server's certificate (warns: anyone
                               on the way can pose as the server)
          --timeout SECONDS    per-operation and connect timeout (default 2.5; management
                               commands wait up to 75 s unless it is given)

        exit codes: 0 success, 1 the server refused (e.g. not found), 2 bad command line,
                    3 server unreachable, connection lost or timed out,
                    4 authentication failed (wrong user or password),
                    5 no such bucket, scope or collection (or the user may not use it),
                    6 no management port (ternd --mgmt-port none)
        """;
}
