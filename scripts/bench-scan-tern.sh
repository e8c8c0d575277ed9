#!/usr/bin/env bash
# Usage: bench-scan-tern.sh [BUILD_DIR]
# Issue 26's scan / gets ratio with Tern.Client, whose per-item cost is low enough for the
# server's to show: `tern bench --scan` against a ternd (Release) with one ephemeral bucket of
# QUOTA_MB (default 2048, nothing evicted): ITEMS (default 1000000) upserts of 100-byte values,
# the same keys read back with pipelined gets (IN_FLIGHT at once, default 256), then with one
# range scan of their prefix (16 vbuckets at once) and an ids-only one, in one process; prints
# each phase's rate, each scan's against the gets' (the issue's goal: the scan at least 3x),
# and ternd's CPU time per document in the get and scan phases (from /proc, read as each
# phase's line arrives).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}
items=${ITEMS:-1000000}

dotnet build dotnet/src/Tern.Cli -c Release -nologo -v q >/dev/null
bench_runtime=dotnet
source scripts/lib/release-bench.sh
# Ephemeral: no flusher or compaction runs beside the phases, so ternd's CPU in each is its own.
# (An ephemeral bucket has nothing to warm up: it serves once ternd listens.)
ternd_start "$(ternd_bench_config "${QUOTA_MB:-2048}" ephemeral)" "$TERND_WORK/data"
# ternd's CPU time (user + system, in clock ticks) now.
ternd_ticks() { awk '{ print $14 + $15 }' "/proc/$TERND_PID/stat"; }
# Each phase's line comes as the phase ends: ternd's CPU between two lines is that phase's.
ticks_per_second=$(getconf CLK_TCK)
last=$(ternd_ticks)
TERN_PASSWORD=password dotnet dotnet/src/Tern.Cli/bin/Release/net10.0/tern.dll bench --scan --ops "$items" \
  --concurrency "${IN_FLIGHT:-256}" --value-size 100 --server "couchbase://127.0.0.1:$TERND_PORT" -u bench --timeout 30 |
  while IFS= read -r line; do
    now=$(ternd_ticks)
    echo "$line"
    case "$line" in
      get\ *|scan\ *|scan-ids\ *)
        awk -v phase="${line%% *}" -v ticks=$((now - last)) -v hz="$ticks_per_second" -v n="$items" \
          'BEGIN { printf "  ternd CPU in the %s phase: %.2f s, %.2f us per document\n", phase, ticks / hz, ticks / hz / n * 1e6 }' ;;
    esac
    last=$now
  done
echo "ternd's RSS at the end: $(($(awk '/VmRSS/ { print $2 }' "/proc/$TERND_PID/status") / 1024)) MiB;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
