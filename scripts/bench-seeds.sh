#!/usr/bin/env bash
# Usage: bench-seeds.sh [BenchmarkDotNet arguments]
# Runs the SDK's seed benchmarks (OpCompletion, Stopwatch, WriteKey, SubdocEncode) in Release
# and prints their tables. BENCH_GROUP=Scan TABLES=ScanFrame runs another folder's instead
# (`make bench-scan-alloc`). The job is SeedConfig's short one (1 launch, 3 warm-up and 20 measured
# iterations of ~250 ms), about 4 minutes on 2 cores; pass `--job default` for full-length runs.
# BenchmarkDotNet's full log is kept in build/bench-seeds/run.log.
set -euo pipefail
cd "$(dirname "$0")/.."
# As root, run ahead of builds sharing the machine (only root may raise priority).
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
group=${BENCH_GROUP:-Seeds}
out=$PWD/build/bench-$(echo "$group" | tr '[:upper:]' '[:lower:]')
rm -rf "$out"
mkdir -p "$out"
project=dotnet/bench/Tern.Benchmarks
dotnet build "$project" -c Release -nologo -v q >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  ".NET $(dotnet --list-runtimes | sed -n 's/^Microsoft.NETCore.App \([^ ]*\).*/\1/p' | tail -n 1)," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
# BenchmarkDotNet rebuilds the project for its child process: run it from the project folder.
if ! (cd "$project" && dotnet bin/Release/net10.0/Tern.Benchmarks.dll \
      --filter "Tern.Benchmarks.$group.*" --artifacts "$out" "$@") >"$out/run.log" 2>&1; then
  tail -n 40 "$out/run.log" >&2
  echo "bench-seeds: BenchmarkDotNet failed; full log in $out/run.log" >&2
  exit 1
fi
for table in ${TABLES:-OpCompletion Stopwatch WriteKey SubdocEncode}; do
  report=$(ls "$out"/results/*"${table}Benchmarks-report-github.md" 2>/dev/null || true)
  if [ -z "$report" ]; then
    echo "bench-seeds: no $table table; see $out/run.log" >&2
    exit 1
  fi
  echo "### $table"
  echo
  cat "$report"
  echo
done
