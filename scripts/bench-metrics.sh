#!/usr/bin/env bash
# Usage: bench-metrics.sh [BUILD_DIR]
# Builds metrics_bench (Release) and prints what one GET /metrics costs the server (the
# rendering of 10 buckets of 10 collections each: commands::render_prometheus) and what the
# metrics add to each request (one latency record and one collection count), as medians.
# What a scraper polling every 100 ms costs the KV port end to end is in make bench-server
# (its "+scrape" rows). REPETITIONS (default 3) and MIN_TIME (seconds, default 0.5) as in
# scripts/lib/gbench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gbench.sh
build_dir=${1:-build/release}

gbench_build "$build_dir" metrics_bench
out="$build_dir/metrics_bench.json"
gbench_machine_line
gbench_run "$build_dir" metrics_bench '.' "$out"
PYTHONPATH=scripts/lib python3 - "$out" <<'PY'
import sys
from gbench import medians

scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}
for b in medians(sys.argv[1]):
    us = b["cpu_time"] * scale[b.get("time_unit", "ns")]
    name = b["run_name"]
    if name.startswith("BM_Scrape"):
        print(f"one scrape, 10 buckets x 10 collections: {us:.0f} us CPU "
              f"({b['real_time'] * scale[b.get('time_unit', 'ns')]:.0f} us wall), "
              f"{b['text_bytes'] / 1024:.0f} KiB of text")
    else:
        print(f"per request ({name.split('/')[-1]}): {us * 1e3:.1f} ns CPU")
PY
