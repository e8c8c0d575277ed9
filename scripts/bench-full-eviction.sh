#!/usr/bin/env bash
# Usage: bench-full-eviction.sh [BASE_REV]
# Issue 28's full-eviction figure: inserting new keys into a couchbase bucket with full
# eviction whose shards have already evicted. Starts a ternd (Release) with one such bucket of
# QUOTA_MB on a fresh data directory, stores ITEMS keys (kv_load --preload-only: 16 B keys,
# 100 B values, pipelined SETs on one connection) so that eviction drops most of them, waits
# for the flusher to drain, then stores ITEMS keys never stored before (--first-key ITEMS) and
# times that second load. Reports its rate, the SETs refused for want of memory (kv_load sends
# them again after 1 ms), the share of those inserts that read the disk
# (the rise of ep_bg_fetched over ITEMS), the items eviction read per item it evicted
# (ep_eviction_visits over ep_num_value_ejects), and the bloom filters' keys and bytes.
# With BASE_REV it also builds that commit's ternd (once: build/bench-base/<commit>/ternd) and
# measures it the same way, the two
# alternated REPETITIONS times, and prints the median rates and their ratio.
# Environment: ITEMS (default 1000000), QUOTA_MB (default 64), REPETITIONS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
items=${ITEMS:-1000000}
quota_mb=${QUOTA_MB:-64}
repetitions=${REPETITIONS:-3}
base_rev=${1:-}

source scripts/lib/kv_load_bench.sh

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "bucket: couchbase, full eviction, ${quota_mb} MiB; $items keys stored, then $items new ones"

config=$(ternd_bench_config "$quota_mb" couchbase full)
load() {
  "$kv_load" --port "$TERND_PORT" --mode couchbase --user bench --password password \
    --collection-id 0 --connections 1 --keys "$items" --preload-only "$@"
}
wait_for_flusher() {
  until [ "$(ternd_stat ep_queue_size)" = 0 ] && [ "$(ternd_stat ep_flusher_todo)" = 0 ]; do
    sleep 0.2
  done
}

declare -A rates=()
measure() {
  local name=$1 data="$TERND_WORK/data-$1-$2"
  TERND=${ternd_of[$name]}
  ternd_start "$config" "$data"
  ternd_wait_warm
  load >/dev/null
  wait_for_flusher
  local ejected fetched_before loaded seconds refused fetched
  ejected=$(ternd_stat ep_num_value_ejects)
  [ "$ejected" -gt 0 ] || { echo "bench-full-eviction: nothing was evicted; lower QUOTA_MB" >&2; exit 1; }
  fetched_before=$(ternd_stat ep_bg_fetched)
  local visits_before visits
  visits_before=$(ternd_stat ep_eviction_visits 2>/dev/null || true)
  loaded=$(load --first-key "$items")
  seconds=$(sed -n 's/.*seconds=//p' <<< "$loaded")
  refused=$(sed -n 's/.*refused=\([0-9]*\).*/\1/p' <<< "$loaded")
  fetched=$(($(ternd_stat ep_bg_fetched) - fetched_before))
  # The items eviction read per item it evicted over the load (ternds that count them).
  visits=-
  if [ -n "$visits_before" ]; then
    visits=$(awk -v v="$(($(ternd_stat ep_eviction_visits) - visits_before))" \
      -v e="$(($(ternd_stat ep_num_value_ejects) - ejected))" \
      'BEGIN { printf "%.1f", (e > 0 ? v / e : 0) }')
  fi
  local filter_keys filter_bytes
  filter_keys=$(ternd_stat ep_bloom_filter_key_count 2>/dev/null || echo -)
  filter_bytes=$(ternd_stat ep_bloom_filter_memory 2>/dev/null || echo -)
  ternd_stop
  rm -rf "$data"
  local rate
  rate=$(awk -v n="$items" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
  rates[$name]+="$rate "
  printf '%-5s run %d: %s new keys in %s s = %s/s (%s SETs refused and sent again);' \
    "$name" "$2" "$items" "$seconds" "$rate" "${refused:-?}"
  printf ' disk reads %d (%.2f%%); evicted before %s, items read per eviction %s;' "$fetched" \
    "$(awk -v f="$fetched" -v n="$items" 'BEGIN { print 100 * f / n }')" "$ejected" "$visits"
  printf ' bloom filters: %s keys, %s bytes\n' "$filter_keys" "$filter_bytes"
}

for run in $(seq "$repetitions"); do
  for name in "${names[@]}"; do measure "$name" "$run"; done
done

median() { printf "%s\n" $1 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "median insert rate, this tree: $(median "${rates[this]}")/s"
if [ -n "$base_rev" ]; then
  echo "median insert rate, $base_rev: $(median "${rates[base]}")/s"
  awk -v a="$(median "${rates[this]}")" -v b="$(median "${rates[base]}")" -v rev="$base_rev" \
    'BEGIN { printf "ratio this tree / %s: %.2fx\n", rev, a / b }'
fi
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
