namespace Tern.Cli;

/// <summary>The help text, shown by `tern --help` and after a usage error.</summary>
public static class Usage
{
    public static readonly string Text = $"""
        usage: tern COMMAND [ARGS] [--server HOST:PORT] [--timeout SECONDS]

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
          --timeout SECONDS    per-operation and connect timeout (default 2.5)

        exit codes: 0 success, 1 the server refused (e.g. not found), 2 bad command line,
                    3 server unreachable, connection lost or timed out
        """;
}
