#!/usr/bin/env bash
# Usage: bench-transactions.sh [BUILD_DIR]
# Issue 26's transaction figures: the official Node.js SDK's transactions of two replaces
# (compat/bench/transactions.mjs) against a ternd (Release) with one couchbase bucket of
# QUOTA_MB (default 512): transactions per second and latency p50/p99, one at a time and
# IN_FLIGHT (default 16) at once, SECONDS (default 10) each.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}

source scripts/lib/release-bench.sh
ternd_start "$(ternd_bench_config "${QUOTA_MB:-512}")" "$TERND_WORK/data"
ternd_wait_warm
node compat/bench/transactions.mjs --port "$TERND_PORT" --seconds "${SECONDS_PER_PHASE:-10}" \
  --in-flight "${IN_FLIGHT:-16}"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
