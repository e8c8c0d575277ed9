#!/usr/bin/env bash
# Usage: bench-warmup.sh [BASE_REV]
# Issue 11's warmup figure, and issue 28's with full eviction's bloom filters. Starts a ternd
# (Release) with one couchbase bucket on a fresh data directory, loads ITEMS small items into
# it (kv_load --preload-only: 16 B keys, 100 B values, pipelined SETs on one connection),
# stops it with SIGTERM (a clean stop flushes everything), then restarts it on the same
# directory REPETITIONS times and times each warmup: the server's own ep_warmup_time_ms
# (start of warmup to the last record restored) and, for the whole restart, the wall time
# from launching ternd to STAT answering ep_warmup_state done. Each restart must count every
# item (curr_items = ITEMS) and, unless the bucket has full eviction, load every value
# (ep_warmup_value_count = ITEMS), else the script fails. Under full eviction what does not
# fit below the low watermark stays on disk, its keys in the bloom filters, which warmup
# builds: the rows report the values loaded and the filters' keys and bytes.
# With BASE_REV it also builds that commit's ternd (once: build/bench-base/<commit>/ternd) and
# restarts it on a copy of the same data directory, the two alternated, and prints the median
# warmup times and their ratio.
# Environment: ITEMS (default 1000000), REPETITIONS (default 3), QUOTA_MB (default 2048),
# EVICTION (value or full; default the bucket's, value).
# After the first restart the files are in the page cache: the figure is a warm-cache one.
set -euo pipefail
cd "$(dirname "$0")/.."
items=${ITEMS:-1000000}
repetitions=${REPETITIONS:-3}
eviction=${EVICTION:-}
base_rev=${1:-}

source scripts/lib/kv_load_bench.sh

# kv_load logs in as `bench`; the STAT client of scripts/lib/ternd.sh comes in anonymously.
config=$(ternd_bench_config "${QUOTA_MB:-2048}" couchbase "$eviction")

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "bucket: couchbase, ${QUOTA_MB:-2048} MiB, ${eviction:-value} eviction; $items items"

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

data="$TERND_WORK/data"
TERND=${ternd_of[this]}
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
# Each ternd restarts on a directory of its own, so that neither reads what the other wrote.
declare -A data_of=([this]="$data")
if [ -n "$base_rev" ]; then
  data_of[base]="$TERND_WORK/data-base"
  cp -a "$data" "${data_of[base]}"
fi

declare -A server_ms=() wall_s=() rows=()
restart() {
  local name=$1 run=$2 start wall values current ms
  TERND=${ternd_of[$name]}
  start=$(date +%s.%N)
  ternd_start "$config" "${data_of[$name]}"
  ternd_wait_warm
  wall=$(since "$start")
  values=$(ternd_stat ep_warmup_value_count)
  current=$(ternd_stat curr_items)
  ms=$(ternd_stat ep_warmup_time_ms)
  local filter_keys filter_bytes
  filter_keys=$(ternd_stat ep_bloom_filter_key_count 2>/dev/null || echo -)
  filter_bytes=$(ternd_stat ep_bloom_filter_memory 2>/dev/null || echo -)
  echo "$name restart $run: ep_warmup_time_ms=$ms wall=${wall}s ep_warmup_value_count=$values" \
       "curr_items=$current ep_warmup_skipped=$(ternd_stat ep_warmup_skipped)" \
       "ep_bloom_filter_key_count=$filter_keys ep_bloom_filter_memory=$filter_bytes"
  if [ "$current" != "$items" ] || { [ "$eviction" != full ] && [ "$values" != "$items" ]; }; then
    echo "bench-warmup: $name's restart brought back $values values, $current items, not $items" >&2
    exit 1
  fi
  server_ms[$name]+="$ms "
  wall_s[$name]+="$wall "
  rows[$name]+="$run $ms $wall $values $filter_keys $filter_bytes;"
  ternd_stop
}

for run in $(seq "$repetitions"); do
  for name in "${names[@]}"; do restart "$name" "$run"; done
done

row() {
  awk -v what="$1" -v n="$items" -v ms="$2" -v wall="$3" -v values="$4" -v keys="$5" \
      -v bytes="$6" 'BEGIN {
    if (ms < 1) ms = 1
    printf "| %s | %d | %.2f s | %.0f | %.2f s | %.0f | %s | %s | %s |\n", what, n, ms / 1000,
      n * 1000 / ms, wall, n / wall, values, keys, bytes }'
}
median() { printf "%s\n" $1 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
for name in "${names[@]}"; do
  echo
  echo "$name ($([ "$name" = this ] && echo "this tree" || echo "$base_rev")):"
  echo
  echo "| restart | items | warmup (server: ep_warmup_time_ms) | items/s | launch to warm (wall) | items/s | values loaded | filter keys | filter bytes |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  IFS=';' read -ra runs <<<"${rows[$name]}"
  for r in "${runs[@]}"; do
    read -r run ms wall values keys bytes <<<"$r"
    row "$run" "$ms" "$wall" "$values" "$keys" "$bytes"
  done
  row median "$(median "${server_ms[$name]}")" "$(median "${wall_s[$name]}")" "" "" ""
done
if [ -n "$base_rev" ]; then
  echo
  awk -v a="$(median "${server_ms[this]}")" -v b="$(median "${server_ms[base]}")" \
      -v c="$(median "${wall_s[this]}")" -v d="$(median "${wall_s[base]}")" -v rev="$base_rev" \
    'BEGIN { printf "median warmup, this tree / %s: %.2fx (server), %.2fx (launch to warm)\n",
               rev, a / b, c / d }'
fi
