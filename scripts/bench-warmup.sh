#!/usr/bin/env bash
# Usage: bench-warmup.sh [BUILD_DIR]
# Issue 11's warmup figure. Starts a ternd (Release) with one couchbase bucket on a fresh data
# directory, loads ITEMS small items into it (kv_load --preload-only: 16 B keys, 100 B values,
# pipelined SETs on one connection), stops it with SIGTERM (a clean stop flushes everything),
# then restarts it on the same directory REPETITIONS times and times each warmup: the
# server's own ep_warmup_time_ms (start of warmup to the last record restored) and, for the
# whole restart, the wall time from launching ternd to STAT answering ep_warmup_state done.
# Each restart must bring back every item (ep_warmup_value_count and curr_items = ITEMS), else
# the script fails. Prints each restart (the first one also replays RocksDB's write-ahead log
# when the store opens, before warmup starts: the wall time shows it) and the medians.
# Environment: ITEMS (default 1000000), REPETITIONS (default 3), QUOTA_MB (default 2048).
# After the first restart the files are in the page cache: the figure is a warm-cache one.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}
items=${ITEMS:-1000000}
repetitions=${REPETITIONS:-3}

bash scripts/build-server.sh "$build_dir" Release "" ternd kv_load >/dev/null
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
TERND="$build_dir/server/ternd"
kv_load="$build_dir/server/kv_load"
TERND_WORK=$(mktemp -d)
source scripts/lib/ternd.sh
trap 'ternd_kill; rm -rf "$TERND_WORK"' EXIT

# kv_load logs in as `bench`; the STAT client of scripts/lib/ternd.sh comes in anonymously.
config=$(ternd_bench_config "${QUOTA_MB:-2048}")

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

data="$TERND_WORK/data"
ternd_start "$config" "$data"
ternd_wait_warm
"$kv_load" --port "$TERND_PORT" --mode couchbase --user bench --password password \
  --collection-id 0 --connections 1 --keys "$items" --preload-only
loaded=$(ternd_stat curr_items)
[ "$loaded" = "$items" ] || { echo "bench-warmup: $loaded items after the load, not $items" >&2; exit 1; }
queued=$(ternd_stat ep_queue_size)
persisted=$(ternd_stat ep_total_persisted)
stop_start=$(date +%s.%N)
ternd_stop
echo "loaded $items items; at SIGTERM $persisted were on disk and $queued queued; the clean" \
     "stop took $(since "$stop_start") s; data directory $(du -sh "$data" | cut -f1)"

server_ms=()
wall_s=()
for run in $(seq "$repetitions"); do
  start=$(date +%s.%N)
  ternd_start "$config" "$data"
  ternd_wait_warm
  wall=$(since "$start")
  values=$(ternd_stat ep_warmup_value_count)
  current=$(ternd_stat curr_items)
  ms=$(ternd_stat ep_warmup_time_ms)
  echo "restart $run: ep_warmup_time_ms=$ms wall=${wall}s ep_warmup_value_count=$values" \
       "curr_items=$current ep_warmup_skipped=$(ternd_stat ep_warmup_skipped)"
  if [ "$values" != "$items" ] || [ "$current" != "$items" ]; then
    echo "bench-warmup: the restart brought back $values values, $current items, not $items" >&2
    exit 1
  fi
  server_ms+=("$ms")
  wall_s+=("$wall")
  ternd_stop
done

row() {
  awk -v what="$1" -v n="$items" -v ms="$2" -v wall="$3" 'BEGIN {
    if (ms < 1) ms = 1
    printf "| %s | %d | %.2f s | %.0f | %.2f s | %.0f |\n", what, n, ms / 1000, n * 1000 / ms,
      wall, n / wall }'
}
median() { printf "%s\n" "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "| restart | items | warmup (server: ep_warmup_time_ms) | items/s | launch to warm (wall) | items/s |"
echo "|---|---:|---:|---:|---:|---:|"
for run in $(seq "$repetitions"); do
  row "$run" "${server_ms[run - 1]}" "${wall_s[run - 1]}"
done
row "median" "$(median "${server_ms[@]}")" "$(median "${wall_s[@]}")"
