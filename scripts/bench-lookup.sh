#!/usr/bin/env bash
# Usage: bench-lookup.sh [BASE_REV]
# Builds lookup_bench (Release) and runs LookupAndCopy: what a GET does with the engine's
# memory (hash, HashTable::find, a reference to the item, its value copied out), with the
# table in the cache (4Ki items) and out of it (64Ki: bench-server's key space; 1Mi), with
# and without prefetching a few keys ahead, and with and without other work between lookups.
# Prints the median time per lookup and, per case, what prefetching saved in the same run.
# With BASE_REV it also builds this tree's bench/lookup_bench.cc against that commit's engine
# (built once: scripts/lib/base_build.sh; the file uses only what older engines have too),
# runs it in the same run, after this tree's, and prints the cold lookups (no prefetching)
# of both with their ratio.
# REPETITIONS (default 3) and MIN_TIME (seconds, default 0.5) as in scripts/lib/gbench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gbench.sh
build_dir=build/release
base_rev=${1:-}

gbench_build "$build_dir" lookup_bench
out="$build_dir/lookup_bench.json"
base_out=
if [ -n "$base_rev" ]; then
  TERND_WORK=$(mktemp -d)
  trap 'git worktree remove --force "$TERND_WORK/base" >/dev/null 2>&1 || true; rm -rf "$TERND_WORK"' EXIT
  source scripts/lib/base_build.sh
  base_binary=$(base_build "$base_rev" lookup_bench \
    "cp '$PWD/server/bench/lookup_bench.cc' server/bench/lookup_bench.cc # $(sha1sum < server/bench/lookup_bench.cc | cut -c1-12)")
  mkdir -p "$TERND_WORK/server"
  cp "$base_binary" "$TERND_WORK/server/lookup_bench"
  base_out="$TERND_WORK/base.json"
fi
gbench_machine_line
gbench_run "$build_dir" lookup_bench '^LookupAndCopy/' "$out"
[ -z "$base_out" ] || gbench_run "$TERND_WORK" lookup_bench '^LookupAndCopy/' "$base_out"
PYTHONPATH=scripts/lib python3 - "$out" "$base_out" "$base_rev" <<'PY'
import re, sys
from gbench import medians

def lookups(path):
    ns = {}
    for b in medians(path):
        m = re.match(r"LookupAndCopy/items:(\d+)/prefetch:(\d+)/work:(\d+)", b["run_name"])
        if m:
            scale = {"ns": 1.0, "us": 1e3, "ms": 1e6}[b.get("time_unit", "ns")]
            ns[tuple(int(g) for g in m.groups())] = b["real_time"] * scale
    return ns

ns = lookups(sys.argv[1])
print("| items | other work (rounds) | no prefetch | prefetch 2 ahead | prefetch 4 ahead | saved (4 ahead) |")
print("|---:|---:|---:|---:|---:|---:|")
for items, work in sorted({(i, w) for (i, _, w) in ns}):
    plain, two, four = (ns.get((items, d, work)) for d in (0, 2, 4))
    fmt = lambda v: "-" if v is None else f"{v:.0f} ns"
    saved = "-" if plain is None or four is None else f"{plain - four:.0f} ns ({four / plain:.2f}x)"
    print(f"| {items} | {work} | {fmt(plain)} | {fmt(two)} | {fmt(four)} | {saved} |")

if sys.argv[2]:
    base = lookups(sys.argv[2])
    print()
    print(f"Cold lookups (no prefetching), this tree against {sys.argv[3]}, same run:")
    print(f"| items | other work (rounds) | this tree | {sys.argv[3]} | ratio |")
    print("|---:|---:|---:|---:|---:|")
    for items, work in sorted({(i, w) for (i, d, w) in ns if d == 0}):
        a, b = ns.get((items, 0, work)), base.get((items, 0, work))
        if a is None or b is None:
            continue
        print(f"| {items} | {work} | {a:.0f} ns | {b:.0f} ns | {a / b:.2f}x |")
PY
