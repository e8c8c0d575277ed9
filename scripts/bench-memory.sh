#!/usr/bin/env bash
# Usage: bench-memory.sh [BASE_REV]
# Issue 28's memory figure: what one item costs in resident memory, ternd against memcached
# 1.6 loaded with the same data in the same run. For each value size (32 B, 256 B and 4 KiB;
# 16-byte keys), each server starts afresh, kv_load --preload-only stores ITEMS keys over one
# connection (plain memcached binary protocol: both servers get the very same frames), and the
# figure is the growth of the server's RSS (VmRSS) from before the load to after it (for
# memcached, after its hash table has grown for the load), over ITEMS. ternd serves an
# ephemeral bucket (an in-memory cache, as memcached is) whose quota holds everything;
# memcached gets -m to match. ternd's mem_used (what its quota counts) is
# printed beside its RSS, so that the two can be compared. With BASE_REV it also measures
# that commit's ternd (built once: build/bench-base/<commit>/ternd). Each server and size
# runs REPETITIONS times, alternated; the medians are printed with ternd/memcached ratios.
# Environment: ITEMS (default 1000000), VALUE_SIZES (default "32 256 4096"), REPETITIONS
# (default 3), TERND_IO (ternd's --io backend; default its own, io_uring where the kernel
# allows: its provided receive buffers, touched as they are used, add a fixed ~2.2 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
items=${ITEMS:-1000000}
value_sizes=${VALUE_SIZES:-32 256 4096}
repetitions=${REPETITIONS:-3}
base_rev=${1:-}

memcached_pid=
bench_cleanup() { [ -z "$memcached_pid" ] || kill "$memcached_pid" 2>/dev/null || true; }
source scripts/lib/kv_load_bench.sh
servers=("${names[@]}" memcached)

# Room for the largest load, with a margin: nothing may be evicted.
quota_mb=$(( (items * (16 + ${value_sizes##* }) * 2 >> 20) + 256 ))
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
     "$(free -g | awk '/^Mem:/ { print $2 }') GiB; load average $(cut -d' ' -f1-3 /proc/loadavg);" \
     "$(date -u '+%Y-%m-%d %H:%M UTC')"
echo "servers: ternd (ephemeral bucket, quota $quota_mb MiB${TERND_IO:+, --io $TERND_IO}); $(memcached --version) -m $quota_mb"
echo "load: $items keys of 16 B, one connection, pipelined SETs (kv_load --preload-only)"

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# memcached grows its hash table in a thread of its own, after the SET that passes 1.5 items
# per bucket (assoc.c) and not within it: 1M items take it from 2^19 to 2^20 buckets, 8 MiB
# touched in the second after the load. Its figure is taken once the table is the size it
# keeps for these items: not expanding, and at most 1.5 items per bucket (at most 30 s).
# ternd grows its index within the SETs, so its figure is final when the load ends.
memcached_wait_hash_table() {
  local port=$1 tries=0 stats
  while [ "$tries" -lt 300 ]; do
    stats=$(python3 scripts/lib/ternd_stats.py "$port" \
      hash_power_level hash_is_expanding curr_items)
    awk '{ v[$1] = $2 } END { exit !(v["hash_is_expanding"] == 0 &&
                                   v["curr_items"] <= 1.5 * 2 ^ v["hash_power_level"]) }' \
      <<<"$stats" && return
    sleep 0.1
    tries=$((tries + 1))
  done
  echo "memcached's hash table did not settle: $stats" >&2
  return 1
}

start_memcached() {
  local user_args=()
  [ "$(id -u)" -eq 0 ] && user_args=(-u nobody)
  memcached_port=$(free_port)
  memcached "${user_args[@]}" -B binary -t 2 -p "$memcached_port" -U 0 -l 127.0.0.1 \
    -m "$quota_mb" -c 1024 &
  memcached_pid=$!
  wait_until_listening "$memcached_port"
}

declare -A bytes_per_item=()
measure() {
  local name=$1 size=$2 pid port before after extra=""
  if [ "$name" = memcached ]; then
    start_memcached
    pid=$memcached_pid port=$memcached_port
  else
    TERND=${ternd_of[$name]}
    ternd_start "$(ternd_bench_config "$quota_mb" ephemeral)" "$TERND_WORK/data" \
      ${TERND_IO:+--io "$TERND_IO"}
    until ternd_stat curr_items >/dev/null 2>&1; do sleep 0.05; done  # nothing to warm up
    pid=$TERND_PID port=$TERND_PORT
  fi
  before=$(rss_kib "$pid")
  "$kv_load" --port "$port" --mode plain --connections 1 --keys "$items" \
    --value-size "$size" --preload-only >/dev/null
  [ "$name" != memcached ] || memcached_wait_hash_table "$port"
  after=$(rss_kib "$pid")
  if [ "$name" = memcached ]; then
    kill "$memcached_pid"
    wait "$memcached_pid" 2>/dev/null || true
    memcached_pid=
  else
    extra="; mem_used $(ternd_stat mem_used), curr_items $(ternd_stat curr_items)"
    ternd_stop
    rm -rf "$TERND_WORK/data"
  fi
  local per_item
  per_item=$(awk -v a="$after" -v b="$before" -v n="$items" 'BEGIN { printf "%.1f", (a - b) * 1024 / n }')
  bytes_per_item[$name/$size]+="$per_item "
  printf '%-9s %4d B values, run %d: RSS %d -> %d KiB = %s bytes per item%s\n' \
    "$name" "$size" "$3" "$before" "$after" "$per_item" "$extra"
}

for size in $value_sizes; do
  for run in $(seq "$repetitions"); do
    for name in "${servers[@]}"; do measure "$name" "$size" "$run"; done
  done
done

median() { printf "%s\n" $1 | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
printf '%-6s' "value"
for name in "${servers[@]}"; do printf ' %12s' "$name"; done
for name in "${servers[@]}"; do [ "$name" = memcached ] || printf ' %16s' "$name/memcached"; done
echo
for size in $value_sizes; do
  printf '%-6s' "$size"
  for name in "${servers[@]}"; do printf ' %12s' "$(median "${bytes_per_item[$name/$size]}")"; done
  for name in "${servers[@]}"; do
    [ "$name" = memcached ] && continue
    printf ' %15sx' "$(awk -v a="$(median "${bytes_per_item[$name/$size]}")" \
      -v b="$(median "${bytes_per_item[memcached/$size]}")" 'BEGIN { printf "%.2f", a / b }')"
  done
  echo
done
echo "(median bytes of RSS growth per item; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end)"
