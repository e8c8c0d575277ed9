#!/usr/bin/env bash
# Usage: bench-scan.sh [BUILD_DIR]
# Issue 26's range-scan figures. Starts a ternd (Release) with one couchbase bucket of
# QUOTA_MB (everything stays in memory), loads ITEMS documents (kv_load --preload-only: 16 B
# keys, 100 B values), then runs compat/bench/scan.mjs: the official Node.js SDK reads every
# document with pipelined gets, with a full range scan and with an ids-only scan, ROUNDS
# times in one process, and prints the rates and the scan / gets ratio.
# Environment: ITEMS (default 1000000), ROUNDS (default 3), QUOTA_MB (default 2048),
# CONCURRENCY (vbuckets scanned at once, default 16), IN_FLIGHT (gets at once, default 256).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}
items=${ITEMS:-1000000}

bench_targets=kv_load
source scripts/lib/release-bench.sh
ternd_start "$(ternd_bench_config "${QUOTA_MB:-2048}")" "$TERND_WORK/data"
ternd_wait_warm
"$build_dir/server/kv_load" --port "$TERND_PORT" --mode couchbase --user bench \
  --password password --collection-id 0 --connections 1 --keys "$items" --preload-only
node compat/bench/scan.mjs --port "$TERND_PORT" --keys "$items" --rounds "${ROUNDS:-3}" \
  --concurrency "${CONCURRENCY:-16}" --in-flight "${IN_FLIGHT:-256}"
echo "ternd's RSS at the end: $(($(awk '/VmRSS/ { print $2 }' "/proc/$TERND_PID/status") / 1024)) MiB;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
