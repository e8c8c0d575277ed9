#!/usr/bin/env bash
# Instructions ternd executes per request under a fixed memaslap workload, counted by
# callgrind: unlike time, the count hardly moves with the load of a shared machine.
# Usage: bench-instructions.sh [BASE_REV]   (BASE_REV: also measure that commit, and the ratio)
# Knobs: RUNS (default 3), REQUESTS (default 100000).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
requests=${REQUESTS:-100000}
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is required" >&2; exit 1; }
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# Prints the median instructions per request of BINARY over $runs runs.
measure() {
  local binary=$1 counts=()
  for run in $(seq "$runs"); do
    local out="$work/cg.out" log="$work/ternd.log"
    # On epoll where the binary has --io: its io_uring loop stalls under valgrind (the
    # kernel fills the completion ring behind valgrind's back), and the code this counts,
    # from the request's bytes to its answer's, is the same on both backends.
    local io_args=()
    "$binary" --help 2>/dev/null | grep -q -- "--io" && io_args=(--io epoll)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" --port 0 --mgmt-port none --threads 1 "${io_args[@]}" 2>"$log" &
    local pid=$!
    for _ in $(seq 150); do grep -q "listening on" "$log" && break; sleep 0.2; done
    local port
    port=$(grep -o "listening on [0-9.]*:[0-9]*" "$log" | sed 's/.*://')
    memcaslap -s "127.0.0.1:$port" -B -T 1 -c 4 -x "$requests" -X 100 -w 1k >/dev/null 2>&1
    kill -TERM "$pid"; wait "$pid" || true
    local total
    total=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    counts+=($((total / requests)))
  done
  printf '%s\n' "${counts[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

bash scripts/build-server.sh build/release Release >/dev/null
current=$(measure build/release/server/ternd)
echo "workload: memaslap --binary, 4 connections, $requests requests (GET:SET 9:1, 100 B values), ternd --threads 1; median of $runs runs"
printf "%-12s %s instructions/request\n" "this tree" "$current"
if [ -n "${1:-}" ]; then
  git worktree add -q --detach "$work/base" "$1"
  cmake -S "$work/base/server" -B "$work/base/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/base/build" --target ternd -j "$(nproc)" >/dev/null
  base=$(measure "$work/base/build/ternd")
  printf '%-12s %s instructions/request\n' "$1" "$base"
  awk -v a="$current" -v b="$base" -v base_rev="$1" 'BEGIN {printf "ratio this tree / %s: %.3f\n", base_rev, a / b}'
fi
