#!/usr/bin/env bash
# Usage: bench-lookup.sh [BUILD_DIR]
# Builds lookup_bench (Release) and runs LookupAndCopy: what a GET does with the engine's
# memory (hash, HashTable::find, a reference to the item, its value copied out), with the
# table in the cache (4Ki items) and out of it (64Ki: bench-server's key space), with and
# without prefetching a few keys ahead, and with and without other work between lookups.
# Prints the median time per lookup and, per case, what prefetching saved in the same run.
# REPETITIONS (default 3) and MIN_TIME (seconds, default 0.5) as in scripts/lib/gbench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gbench.sh
build_dir=${1:-build/release}

gbench_build "$build_dir" lookup_bench
out="$build_dir/lookup_bench.json"
gbench_machine_line
gbench_run "$build_dir" lookup_bench '^LookupAndCopy/' "$out"
PYTHONPATH=scripts/lib python3 - "$out" <<'PY'
import re, sys
from gbench import medians

ns = {}
for b in medians(sys.argv[1]):
    m = re.match(r"LookupAndCopy/items:(\d+)/prefetch:(\d+)/work:(\d+)", b["run_name"])
    if m:
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6}[b.get("time_unit", "ns")]
        ns[tuple(int(g) for g in m.groups())] = b["real_time"] * scale

print("| items | other work (rounds) | no prefetch | prefetch 2 ahead | prefetch 4 ahead | saved (4 ahead) |")
print("|---:|---:|---:|---:|---:|---:|")
for items, work in sorted({(i, w) for (i, _, w) in ns}):
    plain, two, four = (ns.get((items, d, work)) for d in (0, 2, 4))
    fmt = lambda v: "-" if v is None else f"{v:.0f} ns"
    saved = "-" if plain is None or four is None else f"{plain - four:.0f} ns ({four / plain:.2f}x)"
    print(f"| {items} | {work} | {fmt(plain)} | {fmt(two)} | {fmt(four)} | {saved} |")
PY
