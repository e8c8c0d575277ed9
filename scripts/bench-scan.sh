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

bash scripts/build-server.sh "$build_dir" Release "" ternd kv_load >/dev/null
stamp=compat/node_modules/.tern-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s compat/package-lock.json "$stamp"; then
  (cd compat && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp compat/package-lock.json "$stamp"
fi
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
TERND="$build_dir/server/ternd"
TERND_WORK=$(mktemp -d)
source scripts/lib/ternd.sh
trap 'ternd_kill; rm -rf "$TERND_WORK"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
     "Node.js $(node --version); load average $(cut -d' ' -f1-3 /proc/loadavg);" \
     "$(date -u '+%Y-%m-%d %H:%M UTC')"
ternd_start "$(ternd_bench_config "${QUOTA_MB:-2048}")" "$TERND_WORK/data"
ternd_wait_warm
"$build_dir/server/kv_load" --port "$TERND_PORT" --mode couchbase --user bench \
  --password password --collection-id 0 --connections 1 --keys "$items" --preload-only
node compat/bench/scan.mjs --port "$TERND_PORT" --keys "$items" --rounds "${ROUNDS:-3}" \
  --concurrency "${CONCURRENCY:-16}" --in-flight "${IN_FLIGHT:-256}"
echo "ternd's RSS at the end: $(($(awk '/VmRSS/ { print $2 }' "/proc/$TERND_PID/status") / 1024)) MiB;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
