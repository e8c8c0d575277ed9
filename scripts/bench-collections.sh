#!/usr/bin/env bash
# Usage: bench-collections.sh [BUILD_DIR]
# What authentication and collections cost the hot path (issue 8, Proof: Performance). Starts
# ONE ternd from server/config/dev.toml and runs kv_load (server/bench/kv_load.cc) against it,
# alternating two clients: `plain`, as a memcached client (no HELLO, no login, classic keys on
# the anonymous bucket) and `couchbase`, as an SDK (HELLO, SCRAM-SHA512, SELECT_BUCKET, keys
# in collection app.users, vbuckets by CRC). Same process, same load (16 B keys, 100 B values,
# GET:SET 9:1), so the ratio couchbase/plain isolates the new per-request checks.
# Environment knobs (defaults in brackets):
#   SERVER_THREADS  [1]      ternd worker threads
#   CLIENT_THREADS  [1]      kv_load threads
#   CONNECTIONS     [64]     concurrent connections
#   SECONDS_PER_RUN [8]      duration of each run (after connecting and logging in)
#   RUNS            [5]      runs per mode and depth; the table shows medians
#   PIPELINE_DEPTHS ["1 16"] requests in flight per connection, one table row pair each
#   TERND_ARGS      []       more ternd flags (for example --io uring)
#   BUCKET_TYPE     [ephemeral] the bucket's type (couchbase: persisted, flusher included)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/free_port.sh
source scripts/lib/bench_config.sh
build_dir=${1:-build/release}
server_threads=${SERVER_THREADS:-1}
client_threads=${CLIENT_THREADS:-1}
connections=${CONNECTIONS:-64}
seconds=${SECONDS_PER_RUN:-8}
runs=${RUNS:-5}
depths=${PIPELINE_DEPTHS:-1 16}
read -r -a extra_args <<< "${TERND_ARGS:-}"

bash scripts/build-server.sh "$build_dir" Release "" ternd kv_load >/dev/null
# The machine is shared: as root, run the server and the load generator ahead of other work.
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
ternd="$build_dir/server/ternd"
kv_load="$build_dir/server/kv_load"

work=$(mktemp -d)
ternd_pid=
cleanup() {
  [ -z "$ternd_pid" ] || { kill "$ternd_pid" 2>/dev/null && wait "$ternd_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

config="$work/bench.toml"
bench_config "$config"

port=$(free_port)
# For BUCKET_TYPE=couchbase: a data directory of the run's own, removed with $work.
"$ternd" --config "$config" --port "$port" --mgmt-port none --threads "$server_threads" --data-dir "$work/data" "${extra_args[@]}" \
  2>"$work/ternd.log" &
ternd_pid=$!
listening=false
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && { listening=true; break; }
  sleep 0.05
done
if ! $listening; then
  echo "bench-collections: ternd does not listen on port $port:" >&2
  cat "$work/ternd.log" >&2
  exit 1
fi

# One kv_load run; prints "ops/s p50_us p99_us server_cpu_us_per_op". kv_load exits non-zero
# (and so does this script) if any response was not Success.
run_load() {
  "$kv_load" --port "$port" --server-pid "$ternd_pid" --mode "$1" --pipeline "$2" \
    --threads "$client_threads" --connections "$connections" --seconds "$seconds" |
    awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
         END { print v["ops_per_sec"], v["p50_us"], v["p99_us"], v["server_cpu_us_per_op"] }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "load: kv_load --threads $client_threads --connections $connections --seconds $seconds," \
     "16 B keys (10000), 100 B values, GET:SET 9:1; pipeline depths: $depths"
echo "server: ternd --config $config --threads $server_threads (one process for every run)"
echo

declare -A results
for depth in $depths; do
  for run in $(seq "$runs"); do
    for mode in plain couchbase; do
      line=$(run_load "$mode" "$depth")
      echo "depth $depth  run $run  $mode: ops/s p50_us p99_us cpu_us/op = $line"
      results["$mode/$depth"]+="$line"$'\n'
    done
  done
done

kill -0 "$ternd_pid" 2>/dev/null || { echo "bench-collections: ternd died" >&2; exit 1; }

column() { printf "%s" "${results[$1]}" | awk -v c="$2" 'NF { print $c }' | median; }

echo
echo "Medians of $runs runs. Latency: of a whole pipelined batch (send to last response)."
echo "CPU: ternd user+system CPU time per operation (robust to machine noise)."
printf "%-6s %-10s %10s %10s %10s %10s\n" depth mode "ops/s" "p50 (us)" "p99 (us)" "CPU us/op"
for depth in $depths; do
  for mode in plain couchbase; do
    printf "%-6s %-10s %10s %10s %10s %10s\n" "$depth" "$mode" "$(column "$mode/$depth" 1)" \
      "$(column "$mode/$depth" 2)" "$(column "$mode/$depth" 3)" "$(column "$mode/$depth" 4)"
  done
  awk -v a="$(column "couchbase/$depth" 1)" -v b="$(column "plain/$depth" 1)" \
      -v ca="$(column "couchbase/$depth" 4)" -v cb="$(column "plain/$depth" 4)" -v d="$depth" \
    'BEGIN { printf "%-6s couchbase/plain: throughput %.3f, CPU per op %.3f\n", d, a / b, ca / cb }'
done
