# What the scripts that run a Google Benchmark binary share; source it from the repository
# root. As root, the caller then runs ahead of builds sharing the machine (only root may
# raise priority). It defines:
#   gbench_build BUILD_DIR TARGET        builds only TARGET (Release, no sanitizer) in BUILD_DIR
#   gbench_run BUILD_DIR TARGET FILTER OUT
#                                        runs the benchmarks FILTER matches, REPETITIONS times
#                                        each (default 3, aggregates only) for at least MIN_TIME
#                                        seconds (default 0.5), and writes the JSON report to OUT
#   gbench_machine_line                  the "machine: ..." line a report starts with: cores,
#                                        CPU, load average and date, as docs/performance.md
#                                        records them
# scripts/lib/gbench.py reads the report (medians).

[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null

gbench_build() {
  bash scripts/build-server.sh "$1" Release "" "$2" >/dev/null
}

gbench_run() {
  local build_dir=$1 target=$2 filter=$3 out=$4
  "$build_dir/server/$target" --benchmark_filter="$filter" \
    --benchmark_repetitions="${REPETITIONS:-3}" --benchmark_report_aggregates_only=true \
    --benchmark_min_time="${MIN_TIME:-0.5}" --benchmark_out="$out" --benchmark_out_format=json \
    >/dev/null
}

gbench_machine_line() {
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
}
