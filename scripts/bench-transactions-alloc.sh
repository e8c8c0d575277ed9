#!/usr/bin/env bash
# Usage: bench-transactions-alloc.sh [BenchmarkDotNet arguments]
# What a transfer transaction (two gets, two replaces) allocates in Tern.Client, measured with
# BenchmarkDotNet's MemoryDiagnoser against a live ternd (server/config/dev.toml, --port 0,
# SERVER_THREADS worker threads, default 2), against the same gets and CAS replaces without a
# transaction (Tern.Benchmarks/Transactions/TransferAllocationBenchmarks.cs). The job is
# SeedConfig's short one; pass `--job default` for full-length runs. TERND=path picks another
# ternd binary; DOTNET_ARTIFACTS=dir builds Tern.Benchmarks there and runs in-process.
# BenchmarkDotNet's full log and ternd's are kept in build/bench-transactions-alloc/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/bench-transactions-alloc
name=bench-transactions-alloc
rm -rf "$out"
mkdir -p "$out"
source scripts/lib/sdk-bench.sh
dev_ternd_benchmark Tern.Benchmarks.Transactions.TransferAllocationBenchmarks "$@"
