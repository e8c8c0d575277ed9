#!/usr/bin/env bash
# Usage: bench-tls.sh [BUILD_DIR]
# What TLS costs ternd (issue 25, Proof: Benchmarks). Starts ONE ternd from
# server/config/dev.toml with its plain KV port and its TLS port (development certificates
# made by scripts/dev-certs.sh into a temporary directory) and runs kv_load
# (server/bench/kv_load.cc) against it, alternating plain text and TLS in pairs: same process,
# same load (a memcached client: 16 B keys, 100 B values, GET:SET 9:1), so each pair's
# TLS/plain ratio isolates the encryption. Then it times HANDSHAKES connections in turn on each
# port (TCP connect, a full TLS handshake on the TLS port, one NOOP answered).
# Environment knobs (defaults in brackets):
#   SERVER_THREADS  [1]      ternd worker threads
#   CLIENT_THREADS  [1]      kv_load threads
#   CONNECTIONS     [64]     concurrent connections
#   SECONDS_PER_RUN [5]      duration of each run (after connecting and the handshakes)
#   PAIRS           [3]      plain/TLS pairs per pipeline depth; the table shows medians
#   PIPELINE_DEPTHS ["1 16"] requests in flight per connection, one table row pair each
#   HANDSHAKES      [200]    connections timed one after another, per port
#   TERND_ARGS      []       more ternd flags (for example --io epoll)
#   TERND, KV_LOAD  [BUILD_DIR/server/{ternd,kv_load}, built first] binaries to run as they are
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bench_config.sh
build_dir=${1:-build/release}
server_threads=${SERVER_THREADS:-1}
client_threads=${CLIENT_THREADS:-1}
connections=${CONNECTIONS:-64}
seconds=${SECONDS_PER_RUN:-5}
pairs=${PAIRS:-3}
depths=${PIPELINE_DEPTHS:-1 16}
handshakes=${HANDSHAKES:-200}
read -r -a extra_args <<< "${TERND_ARGS:-}"

ternd=${TERND:-$build_dir/server/ternd}
kv_load=${KV_LOAD:-$build_dir/server/kv_load}
[ -n "${TERND:-}" ] && [ -n "${KV_LOAD:-}" ] ||
  bash scripts/build-server.sh "$build_dir" Release "" ternd kv_load >/dev/null
# The machine is shared: as root, run the server and the load generator ahead of other work.
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null

work=$(mktemp -d)
ternd_pid=
cleanup() {
  [ -z "$ternd_pid" ] || { kill "$ternd_pid" 2>/dev/null && wait "$ternd_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT

config="$work/bench.toml"
bench_config "$config"
bash scripts/dev-certs.sh "$work/certs"

# Both ports picked by ternd (free_port's guess can lose a race with the other helpers'
# processes on a busy machine), read from its log.
"$ternd" --config "$config" --port 0 --tls-port 0 --mgmt-port none --mgmt-tls-port none \
  --tls-certificate "$work/certs/server.pem" --tls-private-key "$work/certs/server.key" \
  --threads "$server_threads" --data-dir "$work/data" "${extra_args[@]}" 2>"$work/ternd.log" &
ternd_pid=$!
port= tls_port=
for _ in $(seq 100); do
  port=$(sed -n 's/.* listening on [0-9.]*:\([0-9]*\) with .*/\1/p' "$work/ternd.log")
  tls_port=$(sed -n 's/.*TLS listening on [0-9.]*:\([0-9]*\).*/\1/p' "$work/ternd.log")
  [ -n "$port" ] && [ -n "$tls_port" ] && break
  sleep 0.05
done
if [ -z "$port" ] || [ -z "$tls_port" ]; then
  echo "bench-tls: ternd does not listen on both ports:" >&2
  cat "$work/ternd.log" >&2
  exit 1
fi

# kv_load's key=value line on stdin -> the values of the names given, in that order.
values_of() {
  awk -v names="$*" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END { n = split(names, name, " "); for (i = 1; i <= n; i++) printf "%s%s", v[name[i]], i < n ? " " : "\n" }'
}

# The kv_load flags that reach the plain port ($1 = plain) or the TLS port ($1 = tls).
target() {
  if [ "$1" = plain ]; then echo --port "$port"; else echo --port "$tls_port" --tls-ca "$work/certs/ca.pem"; fi
}

# One kv_load run on the plain port ($1 = plain) or the TLS port ($1 = tls), $2 requests in
# flight per connection; prints "ops/s p50_us p99_us server_cpu_us_per_op". kv_load exits
# non-zero (and so does this script) if any response was not Success.
run_load() {
  # shellcheck disable=SC2046  # target's words are flags and paths without spaces
  "$kv_load" $(target "$1") --server-pid "$ternd_pid" --pipeline "$2" \
    --threads "$client_threads" --connections "$connections" --seconds "$seconds" |
    values_of ops_per_sec p50_us p99_us server_cpu_us_per_op
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "load: kv_load --threads $client_threads --connections $connections --seconds $seconds," \
     "16 B keys (10000), 100 B values, GET:SET 9:1, no login; pipeline depths: $depths"
echo "server: ternd --threads $server_threads${extra_args[*]:+ ${extra_args[*]}} (one process, plain port and TLS" \
     "port, for every run); TLS: $(openssl version), ECDSA P-256 certificate from dev-certs.sh"
echo

declare -A results ratios
for depth in $depths; do
  for pair in $(seq "$pairs"); do
    # Alternate which goes first, so neither always runs on the warmer machine.
    order=(plain tls)
    [ $(( pair % 2 )) -eq 1 ] || order=(tls plain)
    declare -A line
    for mode in "${order[@]}"; do
      line[$mode]=$(run_load "$mode" "$depth")
      echo "depth $depth  pair $pair  $mode: ops/s p50_us p99_us cpu_us/op = ${line[$mode]}"
      results["$mode/$depth"]+="${line[$mode]}"$'\n'
    done
    ratios[$depth]+=$(awk -v t="${line[tls]}" -v p="${line[plain]}" \
      'BEGIN { split(t, a, " "); split(p, b, " "); print a[1] / b[1], a[4] / b[4] }')$'\n'
  done
done

# Handshakes: each port's connections timed one after another.
handshake() {
  # shellcheck disable=SC2046
  "$kv_load" $(target "$1") --handshakes "$handshakes" | values_of p50_us p99_us
}
read -r plain_p50 plain_p99 <<<"$(handshake plain)"
read -r tls_p50 tls_p99 <<<"$(handshake tls)"

kill -0 "$ternd_pid" 2>/dev/null || { echo "bench-tls: ternd died" >&2; exit 1; }

column() { printf "%s" "${results[$1]}" | awk -v c="$2" 'NF { print $c }' | median; }
ratio() { printf "%s" "${ratios[$1]}" | awk -v c="$2" 'NF { print $c }' | median; }

echo
echo "Medians of $pairs runs. Latency: of a whole pipelined batch (send to last response)."
echo "CPU: ternd user+system CPU time per operation (robust to machine noise)."
echo "TLS/plain: the median of the $pairs pairs' ratios (each pair ran back to back)."
printf "%-6s %-10s %10s %10s %10s %10s\n" depth mode "ops/s" "p50 (us)" "p99 (us)" "CPU us/op"
for depth in $depths; do
  for mode in plain tls; do
    printf "%-6s %-10s %10s %10s %10s %10s\n" "$depth" "$mode" "$(column "$mode/$depth" 1)" \
      "$(column "$mode/$depth" 2)" "$(column "$mode/$depth" 3)" "$(column "$mode/$depth" 4)"
  done
  printf "%-6s TLS/plain: throughput %.3f, CPU per op %.3f\n" "$depth" "$(ratio "$depth" 1)" \
    "$(ratio "$depth" 2)"
done
echo
echo "Connection set-up, $handshakes in turn per port (connect + handshake + one NOOP answered):"
printf "%-10s %10s %10s\n" port "p50 (us)" "p99 (us)"
printf "%-10s %10s %10s\n" plain "$plain_p50" "$plain_p99"
printf "%-10s %10s %10s\n" tls "$tls_p50" "$tls_p99"
