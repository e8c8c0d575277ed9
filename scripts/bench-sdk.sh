#!/usr/bin/env bash
# Usage: bench-sdk.sh [load options, e.g. --seconds 10 --concurrency 64 --value-size 256 --keys 10000]
# The SDKs end to end, one table of five rows, all under the same load (a 90/10 get/upsert mix
# of 256-byte JSON values over 10,000 keys, 64 operations in flight, 10 s per row after 2 s of
# warm-up; the options above change it for every row):
#   1. Tern.Client -> ternd over couchbase:// (bucket default, Administrator/password)
#   2. Tern.Client -> the same ternd over couchbases:// (TLS; development certificates made
#      into build/bench-sdk/tls, PLAIN login as the official SDKs do over TLS)
#   3. the official Couchbase Node.js SDK (compat/node_modules/couchbase) -> the same ternd
#   4. Tern.Client -> the same ternd over memcached:// (the dev config's anonymous bucket)
#   5. Tern.Client -> memcached 1.6 over memcached:// (binary protocol)
# Columns: ops/s, p50/p99 latency (HDR histograms: HdrHistogram in .NET, perf_hooks in Node),
# bytes allocated per operation (.NET only), and connect time: connect + bucket + collection +
# the first get, in a fresh process (so .NET's includes JIT compiling the connect path).
# Then the Tern.Client / Node.js ratio of ops/s and p99, and the couchbases:// / couchbase:// one.
# ternd runs with server/config/dev.toml, memcached on a free port, both with SERVER_THREADS
# worker threads (default 2). Every row runs in a process of its own; the keys are stored
# once before the first row so that every row's first get is a hit. TERND=path picks another
# ternd binary; DOTNET_ARTIFACTS=dir builds Tern.Benchmarks there (dotnet --artifacts-path)
# instead of in its project folder. The servers are stopped on exit; their logs and the rows
# (JSON lines) are kept in build/bench-sdk/. As root everything runs at nice -10, ahead of
# builds sharing the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/bench-sdk
name=bench-sdk
mkdir -p "$out"
source scripts/lib/sdk-bench.sh
source scripts/lib/free_port.sh

# The Node.js SDK, as the compat suite installs it (npm ci when missing or from another lockfile).
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "bench-sdk: node 20 or later, and npm, are needed for the Node.js row" >&2; exit 1; }
stamp=compat/node_modules/.tern-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s compat/package-lock.json "$stamp"; then
  echo "bench-sdk: npm ci in compat/" >&2
  (cd compat && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp compat/package-lock.json "$stamp"
fi

pids=()
cleanup() { for pid in "${pids[@]}" ${ternd_pid:-}; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

dev_tls=1 start_dev_ternd
pids+=("$ternd_pid")

memcached_port=$(free_port)
memcached -B binary -U 0 -t "$server_threads" -l 127.0.0.1 -p "$memcached_port" -u "$(id -un)" 2>"$out/memcached.log" &
pids+=($!)
memcached_pid=$!
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$memcached_port") 2>/dev/null && break
  kill -0 "$memcached_pid" 2>/dev/null || { cat "$out/memcached.log" >&2; exit 1; }
  sleep 0.1
done
memcached_name="memcached $(memcached -V | cut -d' ' -f2)"

machine_line "Node.js $(node --version)"
echo "servers: ternd --config server/config/dev.toml --threads $server_threads (TLS: development certificates);" \
  "$memcached_name -B binary -t $server_threads"

tern_client() { dotnet "$dll" sdk "$@"; }
rows=$out/rows.jsonl
: >"$rows"
tern_client --load-only --target "ternd=memcached://127.0.0.1:$ternd_port" \
  --target "$memcached_name=memcached://127.0.0.1:$memcached_port" "$@"
echo "bench-sdk: 1/5 Tern.Client, ternd, couchbase://" >&2
tern_client --json --target "ternd=couchbase://127.0.0.1:$ternd_port" "$@" >>"$rows"
echo "bench-sdk: 2/5 Tern.Client, ternd, couchbases://" >&2
tern_client --json --target "ternd=couchbases://127.0.0.1:$ternd_tls_port" --cacert "$out/tls/ca.pem" "$@" >>"$rows"
echo "bench-sdk: 3/5 Node.js SDK, ternd, couchbase://" >&2
node compat/bench/sdk-load.mjs --target "ternd=couchbase://127.0.0.1:$ternd_port" "$@" >>"$rows"
echo "bench-sdk: 4/5 Tern.Client, ternd, memcached://" >&2
tern_client --json --target "ternd=memcached://127.0.0.1:$ternd_port" "$@" >>"$rows"
echo "bench-sdk: 5/5 Tern.Client, $memcached_name, memcached://" >&2
tern_client --json --target "$memcached_name=memcached://127.0.0.1:$memcached_port" "$@" >>"$rows"
echo
dotnet "$dll" sdk-report "$rows"
