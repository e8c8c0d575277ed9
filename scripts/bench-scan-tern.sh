#!/usr/bin/env bash
# Usage: bench-scan-tern.sh [BUILD_DIR]
# Issue 26's scan / gets ratio with Tern.Client, whose per-item cost is low enough for the
# server's to show: `tern bench --scan` against a ternd (Release) with one couchbase bucket of
# QUOTA_MB (default 2048, nothing evicted): ITEMS (default 1000000) upserts of 100-byte values,
# the same keys read back with pipelined gets (IN_FLIGHT at once, default 256), then with one
# range scan of their prefix (16 vbuckets at once), in one process; prints each phase's rate
# and the scan / gets ratio (the issue's goal: at least 3).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}
items=${ITEMS:-1000000}

dotnet build dotnet/src/Tern.Cli -c Release -nologo -v q >/dev/null
bench_runtime=dotnet
source scripts/lib/release-bench.sh
ternd_start "$(ternd_bench_config "${QUOTA_MB:-2048}")" "$TERND_WORK/data"
ternd_wait_warm
TERN_PASSWORD=password dotnet dotnet/src/Tern.Cli/bin/Release/net10.0/tern.dll bench --scan --ops "$items" \
  --concurrency "${IN_FLIGHT:-256}" --value-size 100 --server "couchbase://127.0.0.1:$TERND_PORT" -u bench --timeout 30
echo "ternd's RSS at the end: $(($(awk '/VmRSS/ { print $2 }' "/proc/$TERND_PID/status") / 1024)) MiB;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
