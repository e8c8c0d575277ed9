#!/usr/bin/env bash
# Usage: bench-executor.sh [BUILD_DIR]
# Builds executor_bench (Release) and runs kv_engine's TimeoutAddCancel in its three
# variants, then prints items/s per (Timeouts, threads) and the ratios the executor is
# judged by: Snooze/SnoozeAndWait and Drained/SnoozeAndWait. Then the scheduler-side cost
# of one snooze with the pool's timer heap and with asio timers.
# REPETITIONS (default 3) runs each benchmark that many times and reports medians;
# MIN_TIME (seconds, default 0.5) is each run's minimum duration.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
repetitions=${REPETITIONS:-3}
min_time=${MIN_TIME:-0.5}

# Only the benchmark's target: it needs the executor, not the rest of the server.
cmake -S server -B "$build_dir/server" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTERN_SANITIZER= >/dev/null
cmake --build "$build_dir/server" -j "$(nproc)" --target executor_bench

out="$build_dir/executor_bench.json"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
"$build_dir/server/executor_bench" --benchmark_filter='^(TimeoutAddCancel|SchedulerSnooze)_' \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_min_time="$min_time" --benchmark_out="$out" --benchmark_out_format=json \
  >/dev/null
python3 - "$out" <<'PY'
import json, re, sys

runs = json.load(open(sys.argv[1]))["benchmarks"]
# Medians when repeated, else the single run.
picked = [b for b in runs if b.get("aggregate_name") == "median"] or \
         [b for b in runs if b.get("run_type") == "iteration"]
rate = {}
scheduler_ns = {}
for b in picked:
    m = re.match(r"SchedulerSnooze_(\w+)/Timeouts:(\d+)", b["run_name"])
    if m:
        scheduler_ns[(m.group(1), int(m.group(2)))] = b["cpu_time"]
    m = re.match(r"TimeoutAddCancel_(\w+)/Timeouts:(\d+)/real_time/threads:(\d+)", b["run_name"])
    if m:
        variant, timeouts, threads = m.group(1), int(m.group(2)), int(m.group(3))
        rate[(variant, timeouts, threads)] = b["items_per_second"]

def fmt(v):
    return "-" if v is None else (f"{v/1e6:.2f}M" if v >= 1e6 else f"{v/1e3:.1f}k")

def ratio(a, b):
    return "-" if a is None or not b else f"{a/b:.1f}x"

print("| Timeouts | threads | Snooze/s | SnoozeAndWait/s | SnoozeDrained/s | Snooze/SnoozeAndWait | Drained/SnoozeAndWait |")
print("|---:|---:|---:|---:|---:|---:|---:|")
for timeouts, threads in sorted({(t, n) for (_, t, n) in rate}):
    snooze = rate.get(("Snooze", timeouts, threads))
    wait = rate.get(("SnoozeAndWait", timeouts, threads))
    drained = rate.get(("SnoozeDrained", timeouts, threads))
    print(f"| {timeouts} | {threads} | {fmt(snooze)} | {fmt(wait)} | {fmt(drained)} "
          f"| {ratio(snooze, wait)} | {ratio(drained, wait)} |")

print()
print("| scheduler side of one snooze | Timeouts | CPU ns per snooze |")
print("|---|---:|---:|")
for (design, timeouts), ns in sorted(scheduler_ns.items()):
    print(f"| {design} | {timeouts} | {ns:.0f} |")
PY
