#!/usr/bin/env bash
# Usage: bench-transactions.sh [BUILD_DIR]
# Issue 26's transaction figures: the official Node.js SDK's transactions of two replaces
# (compat/bench/transactions.mjs) against a ternd (Release) with one couchbase bucket of
# QUOTA_MB (default 512): transactions per second and latency p50/p99, one at a time and
# IN_FLIGHT (default 16) at once, SECONDS (default 10) each.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}

bash scripts/build-server.sh "$build_dir" Release "" ternd >/dev/null
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
ternd_start "$(ternd_bench_config "${QUOTA_MB:-512}")" "$TERND_WORK/data"
ternd_wait_warm
node compat/bench/transactions.mjs --port "$TERND_PORT" --seconds "${SECONDS_PER_PHASE:-10}" \
  --in-flight "${IN_FLIGHT:-16}"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
