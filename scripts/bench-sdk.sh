#!/usr/bin/env bash
# Usage: bench-sdk.sh [load options, e.g. --seconds 10 --value-size 1024]
# Tern.Client end to end: starts ternd (--port 0) and memcached (binary protocol, a free port),
# then runs Get and Upsert through the SDK against each, 1 and 64 operations in flight, and
# prints ops/s, p50/p99 latency and bytes allocated per operation (Tern.Benchmarks `sdk` mode).
# Both servers get the same number of worker threads, SERVER_THREADS (default 2), so the
# comparison is between servers, not thread counts. TERND=path picks another ternd binary.
# Both servers are stopped on exit; their logs are kept in build/bench-sdk/. As root
# everything runs at nice -10, ahead of builds sharing the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
out=$PWD/build/bench-sdk
mkdir -p "$out"
ternd=${TERND:-build/release/server/ternd}
server_threads=${SERVER_THREADS:-2}
[ -x "$ternd" ] || bash scripts/build-server.sh build/release Release
project=dotnet/bench/Tern.Benchmarks
dotnet build "$project" -c Release -nologo -v q >/dev/null

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# Waits until FILE holds "listening on ADDR:PORT" and prints PORT.
wait_for_port() {
  local log=$1 pid=$2
  for _ in $(seq 1 100); do
    local port
    port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "bench-sdk: server did not start; its log:" >&2
  cat "$log" >&2
  return 1
}

# A port nothing listens on (memcached cannot pick its own and report it).
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  echo "bench-sdk: found no free port" >&2
  return 1
}

"$ternd" --port 0 --threads "$server_threads" 2>"$out/ternd.log" &
pids+=($!)
ternd_port=$(wait_for_port "$out/ternd.log" "$!")

memcached_port=$(free_port)
memcached -B binary -U 0 -t "$server_threads" -l 127.0.0.1 -p "$memcached_port" -u "$(id -un)" 2>"$out/memcached.log" &
pids+=($!)
memcached_pid=$!
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$memcached_port") 2>/dev/null && break
  kill -0 "$memcached_pid" 2>/dev/null || { cat "$out/memcached.log" >&2; exit 1; }
  sleep 0.1
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  ".NET $(dotnet --list-runtimes | sed -n 's/^Microsoft.NETCore.App \([^ ]*\).*/\1/p' | tail -n 1)," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "servers: ternd --threads $server_threads; memcached -B binary -t $server_threads"
(cd "$project" && dotnet bin/Release/net10.0/Tern.Benchmarks.dll sdk \
  --target "ternd=127.0.0.1:$ternd_port" \
  --target "memcached=memcached://127.0.0.1:$memcached_port" "$@")
