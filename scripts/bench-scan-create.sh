#!/usr/bin/env bash
# Usage: bench-scan-create.sh [BUILD_DIR]
# Builds scan_create_bench (Release) and prints what a range-scan create costs ternd in memory
# (taking one vbucket's keys from a bucket of 100k and 1M documents over 1024 vbuckets): this
# tree's create, which reads the vbucket's own shard, against the whole-bucket pass a create
# made before the engine kept a shard per vbucket (server/bench/scan_create_bench.cc), medians
# of the same run, and their ratio; then the same create beside a vbucket whose documents are
# spread over the shards (a memcached client's writes), and that vbucket's own create.
# REPETITIONS (default 3) and MIN_TIME (seconds, default 0.5) as in scripts/lib/gbench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gbench.sh
build_dir=${1:-build/release}

gbench_build "$build_dir" scan_create_bench
out="$build_dir/scan_create_bench.json"
gbench_machine_line
gbench_run "$build_dir" scan_create_bench '.' "$out"
PYTHONPATH=scripts/lib python3 - "$out" <<'PY'
import sys
from gbench import medians

scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}
us = {}
for b in medians(sys.argv[1]):
    name, documents = b["run_name"].split("/")
    us[(name, int(documents))] = b["cpu_time"] * scale[b.get("time_unit", "ns")]
    keys = int(b["keys"])
print(f"{'documents':>10} {'one vbucket':>14} {'whole-bucket pass':>18} {'ratio':>8}")
for documents in sorted({d for _, d in us}):
    one, whole = us[("OneVBucket", documents)], us[("WholeBucketPass", documents)]
    print(f"{documents:>10,} {one:>11.1f} us {whole / 1e3:>15.1f} ms {one / whole:>8.5f}x"
          f"   (a pass shared by 1024 creates: {whole / 1024:.1f} us each)")
print()
print("After one document is filed under vbucket 0 away from its key's shard (a memcached client's")
print("write to an ephemeral bucket): vbucket 0's create visits every shard, the others their own.")
print(f"{'documents':>10} {'another vbucket':>16} {'vbucket 0':>12} {'ratio':>8}")
for documents in sorted({d for _, d in us}):
    beside, spread = us[("OneVBucketBesideASpreadOne", documents)], us[("SpreadVBucket", documents)]
    print(f"{documents:>10,} {beside:>13.1f} us {spread / 1e3:>9.1f} ms {beside / spread:>8.5f}x")
PY
