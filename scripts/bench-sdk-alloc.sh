#!/usr/bin/env bash
# Usage: bench-sdk-alloc.sh [BenchmarkDotNet arguments]
# What a Get allocates in Tern.Client, measured with BenchmarkDotNet's MemoryDiagnoser against a
# live ternd (server/config/dev.toml, --port 0, SERVER_THREADS worker threads, default 2): a
# 256-byte document from collection app.users over couchbase:// (vbucket routing), against the
# same Get from the default collection over memcached:// as the baseline
# (Tern.Benchmarks/Sdk/NamedCollectionGetBenchmarks.cs). The issue's bound: the couchbase:// Get
# allocates at most 100 B beyond the value (the Allocated column). The job is SeedConfig's short
# one (1 launch, 3 warm-up and 20 measured iterations of ~250 ms), under a minute per benchmark
# after BenchmarkDotNet's build; pass `--job default` for full-length runs. TERND=path picks
# another ternd binary; DOTNET_ARTIFACTS=dir builds Tern.Benchmarks there (dotnet --artifacts-path)
# and runs the benchmarks in-process (BenchmarkDotNet's child processes would rebuild the project
# in its own folder). BenchmarkDotNet's full log and ternd's are kept in build/bench-sdk-alloc/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/bench-sdk-alloc
name=bench-sdk-alloc
rm -rf "$out"
mkdir -p "$out"
source scripts/lib/sdk-bench.sh
dev_ternd_benchmark Tern.Benchmarks.Sdk.NamedCollectionGetBenchmarks "$@"
# The issue's bound, read off the Allocated column (BenchmarkDotNet writes "-" for nothing).
allocated=$(awk -F'|' '$2 ~ /CouchbaseNamedCollectionGet/ { gsub(/ /, "", $(NF-2)); print $(NF-2) }' "$report")
case "$allocated" in
  -) bytes=0 ;;
  *[0-9]B) bytes=${allocated%B} ;;
  *) bytes= ;;
esac
echo
if [ -z "$bytes" ]; then
  echo "couchbase:// Get on app.users: $allocated per Get, over the issue's bound (100 B beyond the 256-byte value)"
elif [ "$bytes" -le 100 ]; then
  echo "couchbase:// Get on app.users: $bytes B per Get, within the issue's bound (100 B beyond the 256-byte value) even counting the value"
elif [ "$bytes" -le 356 ]; then
  echo "couchbase:// Get on app.users: $bytes B per Get, within the issue's bound only if the value's own 256 B are among them"
else
  echo "couchbase:// Get on app.users: $bytes B per Get, over the issue's bound (100 B beyond the 256-byte value)"
fi
