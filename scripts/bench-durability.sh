#!/usr/bin/env bash
# Usage: bench-durability.sh [BUILD_DIR]
# Issue 11's durability benchmarks, in two parts.
# 1. The durability timeout path (server/bench/durability_bench.cc): one DurabilityMonitor on
#    a real ExecutorPool, writer threads whose every write brings an earlier deadline and so
#    re-aims the timeout task, a flusher-like thread committing them. Same run, same load: the
#    asynchronous snooze() against snooze_and_wait(); prints writes per second (medians) per
#    thread count, the ratio, and the monitor alone (no re-aim) for scale.
# 2. End to end: a ternd (Release) with one couchbase bucket on a fresh data directory, and
#    kv_load (server/bench/kv_load.cc) as an SDK client writing with 64 writes in flight (64
#    connections, one request each, only SETs of 100 B values, each connection its own keys)
#    at each durability level: none, majority, persist-active (MajorityAndPersistToActive),
#    persist-majority (PersistToMajority). Then a second ternd with --fsync-per-write, the
#    baseline of one fsync per write, at persist-majority. Prints ops/s, p50 and p99 (medians)
#    per level and the ratio group commit / fsync-per-write at persist-majority (issue 11's
#    goal: at least 20x). For context it also times fdatasync on the data directory's file
#    system, which bounds what the baseline can do.
# Environment: REPETITIONS (default 3) runs of everything; MIN_TIME (seconds, default 0.5) for
# part 1 (see scripts/lib/gbench.sh); SECONDS_PER_RUN (default 3) for each kv_load run of
# part 2, SERVER_THREADS (default 1) ternd's worker threads.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/bench}
source scripts/lib/gbench.sh

gbench_build "$build_dir" durability_bench
out="$build_dir/durability_bench.json"
gbench_machine_line
gbench_run "$build_dir" durability_bench '^DurabilityTimeout_' "$out"
python3 - "$out" <<'PY'
import re, sys
sys.path.insert(0, "scripts/lib")
from gbench import medians, rate, ratio

per_second = {}
for b in medians(sys.argv[1]):
    m = re.match(r"DurabilityTimeout_(\w+)/real_time/threads:(\d+)", b["run_name"])
    if m:
        per_second[(m.group(1), int(m.group(2)))] = b["items_per_second"]

print("| writer threads | Snooze writes/s | SnoozeAndWait writes/s | Snooze/SnoozeAndWait | NoReaim writes/s |")
print("|---:|---:|---:|---:|---:|")
for threads in sorted({n for (_, n) in per_second}):
    snooze = per_second.get(("Snooze", threads))
    wait = per_second.get(("SnoozeAndWait", threads))
    print(f"| {threads} | {rate(snooze)} | {rate(wait)} | {ratio(snooze, wait)} "
          f"| {rate(per_second.get(('NoReaim', threads)))} |")
PY

# Part 2: end to end.
bash scripts/build-server.sh "$build_dir" Release "" ternd kv_load >/dev/null
TERND="$build_dir/server/ternd"
kv_load="$build_dir/server/kv_load"
TERND_WORK=$(mktemp -d)
source scripts/lib/ternd.sh
trap 'ternd_kill; rm -rf "$TERND_WORK"' EXIT
repetitions=${REPETITIONS:-3}
seconds=${SECONDS_PER_RUN:-3}
connections=64

# kv_load logs in as `bench`; the STAT client of scripts/lib/ternd.sh comes in anonymously.
config=$(ternd_bench_config "1024")

# One kv_load run at durability $1; prints "ops/s p50_us p99_us". kv_load exits non-zero (and
# so does this script) if any response was not Success, a SyncWriteAmbiguous included.
run_level() {
  "$kv_load" --port "$TERND_PORT" --mode couchbase --user bench --password password \
    --collection-id 0 --connections "$connections" --pipeline 1 --sets-percent 100 \
    --durability "$1" --seconds "$seconds" |
    awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
         END { print v["ops_per_sec"], v["p50_us"], v["p99_us"] }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

levels="none majority persist-active persist-majority"
declare -A results
ternd_start "$config" "$TERND_WORK/data" --threads "${SERVER_THREADS:-1}"
ternd_wait_warm
for run in $(seq "$repetitions"); do
  for level in $levels; do results[$level]+="$(run_level "$level")"$'\n'; done
done
ternd_stop
ternd_start "$config" "$TERND_WORK/data-baseline" --threads "${SERVER_THREADS:-1}" \
  --fsync-per-write
ternd_wait_warm
for run in $(seq "$repetitions"); do
  results[baseline]+="$(run_level persist-majority)"$'\n'
done
ternd_stop

column() { printf "%s" "${results[$1]}" | awk -v c="$2" 'NF { print $c }' | median; }

echo
echo "End to end: kv_load, $connections connections x 1 request in flight, SETs of 100 B values," \
     "${seconds}s per run, medians of $repetitions; ternd --threads ${SERVER_THREADS:-1}," \
     "one couchbase bucket; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
echo "| level | ops/s | p50 µs | p99 µs |"
echo "|---|---:|---:|---:|"
for level in $levels baseline; do
  name=$level
  [ "$level" = baseline ] && name="persist-majority, fsync per write (baseline)"
  echo "| $name | $(column "$level" 1) | $(column "$level" 2) | $(column "$level" 3) |"
done
awk -v a="$(column persist-majority 1)" -v b="$(column baseline 1)" 'BEGIN {
  printf "\npersist-majority: group commit / fsync per write = %.1fx (goal: >= 20x)\n", a / b }'
# What one fsync costs here: 2000 appends of 100 B, each followed by fdatasync, as the
# baseline's write-ahead log does.
python3 - "$TERND_WORK" <<'PY'
import os, statistics, sys, time
path = os.path.join(sys.argv[1], "fsync-probe")
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
times = []
for _ in range(2000):
    start = time.perf_counter()
    os.write(fd, b"x" * 100)
    os.fdatasync(fd)
    times.append(time.perf_counter() - start)
os.close(fd)
os.unlink(path)
times.sort()
print(f"fdatasync after a 100 B append on the data directory's file system: "
      f"p50 {statistics.median(times) * 1e6:.0f} µs, p99 {times[int(len(times) * 0.99)] * 1e6:.0f} µs")
PY
