#!/usr/bin/env bash
# Usage: bench-collections-instructions.sh [BUILD_DIR]
# Instructions ternd executes per request for a classic memcached client (no HELLO, no
# login, default collection) and for a Couchbase SDK-style client (HELLO, SCRAM login,
# SELECT_BUCKET, keys in collection app.users), under callgrind: unlike time, the count
# hardly moves with the load of a shared machine. The same kv_load workload as
# bench-collections.sh (GET:SET 9:1, 16 B keys, 100 B values, 4 connections, pipeline 16).
# Each mode runs twice against one ternd (dev.toml, --threads 1), a short run and a long
# one, with the counters zeroed before each: the difference of the two counts over the
# difference of the two operation counts leaves out logins, key preloads and start-up.
# Knobs: SHORT_SECONDS [0.5], LONG_SECONDS [6], BUCKET_TYPE [ephemeral].
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
short=${SHORT_SECONDS:-0.5}
long=${LONG_SECONDS:-6}
# More ternd flags. Under callgrind ternd runs on epoll: its io_uring loop stalls under
# valgrind, and the per-request code this counts is the same on both backends.
read -r -a extra_args <<< "--io epoll ${TERND_ARGS:-}"
bash scripts/build-server.sh "$build_dir" Release "" ternd kv_load >/dev/null

work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

source scripts/lib/bench_config.sh
bench_config "$work/bench.toml"

valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" \
  "$build_dir/server/ternd" --config "$work/bench.toml" --port 0 --mgmt-port none --threads 1 --data-dir "$work/data" "${extra_args[@]}" \
    2>"$work/ternd.log" &
pid=$!
for _ in $(seq 300); do grep -q "listening on" "$work/ternd.log" && break; sleep 0.2; done
port=$(grep -o "listening on [0-9.]*:[0-9]*" "$work/ternd.log" | sed 's/.*://')
[ -n "$port" ] || { echo "bench-collections-instructions: ternd did not start" >&2; exit 1; }

# Instructions and operations of one kv_load run, counted from zero.
measure_run() {
  local mode=$1 seconds=$2 out
  callgrind_control -z "$pid" >/dev/null
  out=$("$build_dir/server/kv_load" --port "$port" --mode "$mode" --connections 4 \
        --pipeline 16 --seconds "$seconds")
  callgrind_control -d "$pid" >/dev/null
  local dump
  dump=$(ls -t "$work"/cg.*.* | head -n 1)
  local instructions
  instructions=$(callgrind_annotate "$dump" 2>/dev/null |
    awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  local ops
  ops=$(sed -n 's/.* ops=\([0-9]*\) .*/\1/p' <<<"$out")
  echo "$instructions $ops"
}

per_request() {
  local mode=$1
  read -r i1 o1 < <(measure_run "$mode" "$short")
  read -r i2 o2 < <(measure_run "$mode" "$long")
  awk -v i1="$i1" -v o1="$o1" -v i2="$i2" -v o2="$o2" 'BEGIN { printf "%d", (i2 - i1) / (o2 - o1) }'
}

plain=$(per_request plain)
couchbase=$(per_request couchbase)
echo "workload: kv_load, 4 connections, pipeline 16, GET:SET 9:1, 16 B keys, 100 B values; ternd --threads 1 under callgrind"
printf '%-10s %6s instructions/request\n' plain "$plain" couchbase "$couchbase"
awk -v a="$couchbase" -v b="$plain" 'BEGIN { printf "ratio couchbase/plain: %.3f\n", a / b }'
