#!/usr/bin/env bash
# Usage: test-under-load.sh
# Runs `make test` RUNS times in a row (default 3) while BURNERS processes (default 2) each
# keep a core busy, as on a shared 2-core machine. Stops at the first failing run; prints how
# long each run took. The burners run at the same priority as the tests and always stop on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
burners=${BURNERS:-2}
log_dir=$PWD/build/test-under-load
mkdir -p "$log_dir"

burner_pids=()
stop_burners() { for pid in "${burner_pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_burners EXIT

# Set-up (packages, a first build) is not what this proves: do it before the load starts.
if ! make --no-print-directory build >"$log_dir/build.log" 2>&1; then
  tail -n 40 "$log_dir/build.log" >&2
  echo "test-under-load: the build failed; full log in $log_dir/build.log" >&2
  exit 1
fi

for _ in $(seq "$burners"); do
  bash -c 'while :; do :; done' &
  burner_pids+=($!)
done
echo "test-under-load: $burners CPU burners beside make test on $(nproc) cores, $runs runs"

durations=()
for run in $(seq "$runs"); do
  start=$(date +%s)
  if ! make --no-print-directory test >"$log_dir/run-$run.log" 2>&1; then
    tail -n 60 "$log_dir/run-$run.log" >&2
    echo "test-under-load: run $run of $runs FAILED after $(( $(date +%s) - start )) s;" \
         "full log in $log_dir/run-$run.log" >&2
    exit 1
  fi
  durations+=($(( $(date +%s) - start )))
  echo "test-under-load: run $run passed in ${durations[-1]} s (load average $(cut -d' ' -f1 /proc/loadavg))"
done
echo "test-under-load: $runs of $runs runs passed beside $burners burners (${durations[*]} s)"
