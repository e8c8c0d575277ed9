#!/usr/bin/env bash
# Usage: bench-transactions.sh [BUILD_DIR]
# Transactions of two replaces (a transfer between two of 1,000 accounts) against one ternd
# (Release) with a couchbase bucket of QUOTA_MB (default 512), through the official Node.js SDK
# (compat/bench/transactions.mjs) and then through Tern.Client (Tern.Benchmarks transactions,
# Transactions/TransferLoad.cs), same run, same documents: transactions per second and latency
# p50/p99, one at a time and IN_FLIGHT (default 16) at once, SECONDS_PER_PHASE (default 10) each.
# Ends with Tern.Client's throughput and p99 over Node's at IN_FLIGHT (issue 27's goal: at least
# 2x the throughput, a lower p99).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}
in_flight=${IN_FLIGHT:-16}
seconds=${SECONDS_PER_PHASE:-10}

dotnet build dotnet/bench/Tern.Benchmarks -c Release -nologo -v q > /dev/null
dll=$PWD/dotnet/bench/Tern.Benchmarks/bin/Release/net10.0/Tern.Benchmarks.dll
source scripts/lib/release-bench.sh
ternd_start "$(ternd_bench_config "${QUOTA_MB:-512}")" "$TERND_WORK/data"
ternd_wait_warm

echo "Node.js SDK $(node -p 'require("./compat/node_modules/couchbase/package.json").version'):"
node compat/bench/transactions.mjs --port "$TERND_PORT" --seconds "$seconds" --in-flight "$in_flight" | tee "$TERND_WORK/node.txt"
echo
echo "Tern.Client:"
dotnet "$dll" transactions --port "$TERND_PORT" --seconds "$seconds" --in-flight "$in_flight" | tee "$TERND_WORK/tern.txt"
echo
row() { awk -F'|' -v n="$in_flight" '$2 + 0 == n { gsub(/ /, ""); print $4, $6 }' "$1"; }
read -r node_rate node_p99 <<< "$(row "$TERND_WORK/node.txt")"
read -r tern_rate tern_p99 <<< "$(row "$TERND_WORK/tern.txt")"
awk -v tr="$tern_rate" -v nr="$node_rate" -v tp="$tern_p99" -v np="$node_p99" -v n="$in_flight" 'BEGIN {
  printf "at %d in flight: Tern.Client / Node.js throughput %.2fx; p99 %.2f ms against %.2f ms (%.2fx)\n", n, tr / nr, tp, np, tp / np }'
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
