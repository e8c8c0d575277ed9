#!/usr/bin/env bash
# Usage: fuzz.sh [TARGET...]
# Builds the libFuzzer targets (server/src/*/*_fuzz.cc) with clang, ASan and UBSan, and runs
# each one (or only the TARGETs named) for FUZZ_SECONDS. Exits non-zero if any of them found a
# crash, a leak, undefined behaviour or a timeout, after running the others; prints per
# target the executions, the coverage (edges) and the corpus size libFuzzer ended with.
#
# Environment:
#   FUZZ_SECONDS    seconds per target (default 30), of the clock
#   FUZZ_CPU_SECONDS  instead, seconds of CPU per target: each runs until it has used that much
#                   (then stops as it would at its time limit, with its final stats), so that
#                   a run on a shared machine still gets its due
#   FUZZ_BUILD_DIR  the build directory (default build/asan, where `make test` runs the
#                   server's suites: clang++-14, RelWithDebInfo, ASan + UBSan, TERN_FUZZ=ON)
#   FUZZ_MERGE=1    afterwards, merge into testdata/fuzz/<target>/ the inputs that add
#                   coverage (otherwise the repository's corpus is only read). After a long
#                   run that is hundreds of files: for a deliberate refresh, reviewed, since
#                   the repository's corpora are meant to stay small.
#
# Per target, in testdata/fuzz/: <target>/ is the seed corpus (replayed by its ctest too),
# <target>.dict an optional dictionary, <target>.options optional libFuzzer flags, one per
# line (e.g. -max_len=4096). What a run finds goes to FUZZ_BUILD_DIR/fuzz/: corpus/<target>/
# (kept from run to run), artifacts/<target>/ (inputs that failed) and logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
build_dir=${FUZZ_BUILD_DIR:-build/asan}
server_dir=$build_dir/server
work=$build_dir/fuzz

if ! command -v clang++-14 >/dev/null 2>&1; then
  echo "fuzz: needs clang++-14 and libFuzzer (apt packages clang-14, libclang-rt-14-dev)" >&2
  exit 1
fi

targets=("$@")
if ((${#targets[@]} == 0)); then
  for src in server/src/*/*_fuzz.cc; do targets+=("$(basename "$src" .cc)"); done
fi

# The sanitizer build that `make test` runs the server's suites in is also the fuzz build
# (scripts/build-server.sh): CI compiles it once for both.
bash scripts/build-server.sh "$build_dir" RelWithDebInfo address "${targets[@]}"

# Any finding ends the run as a failure: leaks are checked, UBSan halts (the build has
# -fno-sanitize-recover=all too).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# The user+system CPU seconds process $1 has used (0 once it is gone).
cpu_seconds() {
  local fields
  fields=$(cut -d' ' -f14,15 "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  echo $(((${fields% *} + ${fields#* }) / $(getconf CLK_TCK)))
}

# A value from libFuzzer's log: its final stats, or the last status line's counters.
stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }
status_field() { { grep -o "$1: [^ ]*" "$2" || true; } | tail -1 | cut -d' ' -f2; }

# Runs one target and prints its line (and its report when it failed); returns non-zero on
# a finding.
fuzz_one() {
  local target=$1
  local seeds=testdata/fuzz/$target corpus=$work/corpus/$target
  local artifacts=$work/artifacts/$target/ log=$work/logs/$target.log
  mkdir -p "$seeds" "$corpus" "$artifacts" "$(dirname "$log")"
  local flags=(-timeout=30 -rss_limit_mb=2048 -close_fd_mask=1 -artifact_prefix="$artifacts")
  [ -f "testdata/fuzz/$target.dict" ] && flags+=(-dict="testdata/fuzz/$target.dict")
  if [ -f "testdata/fuzz/$target.options" ]; then
    while read -r flag; do flags+=("$flag"); done < <(grep -v '^\s*\(#\|$\)' "testdata/fuzz/$target.options")
  fi
  # New inputs go to the first directory only: the repository's seeds are read, not written.
  local result=ok used=
  if [ -n "${FUZZ_CPU_SECONDS:-}" ]; then
    # libFuzzer's own limit is of the clock: a watcher asks it to stop (SIGUSR1, a graceful
    # exit) once it has had its CPU time; the clock limit only bounds a starved run.
    "$server_dir/$target" -max_total_time=$((FUZZ_CPU_SECONDS * 20)) -print_final_stats=1 \
      "${flags[@]}" "$corpus" "$seeds" >"$log" 2>&1 &
    local pid=$!
    used=0
    while kill -0 "$pid" 2>/dev/null; do
      used=$(cpu_seconds "$pid")
      ((used < FUZZ_CPU_SECONDS)) || kill -USR1 "$pid" 2>/dev/null || true
      sleep 5
    done
    wait "$pid" || result=FAILED
  else
    "$server_dir/$target" -max_total_time="$seconds" -print_final_stats=1 "${flags[@]}" \
      "$corpus" "$seeds" >"$log" 2>&1 || result=FAILED
  fi
  local corp
  corp=$(status_field corp "$log")
  local report
  report=$(printf 'fuzz: %-22s %s: %s executions (%s/s), cov: %s edges, corpus: %s inputs / %s\n' \
    "$target" "$result" "$(stat number_of_executed_units "$log")" \
    "$(stat average_exec_per_sec "$log")" "$(status_field cov "$log")" "${corp%%/*}" \
    "${corp#*/}")${used:+, CPU: ${used} s}
  if [ "$result" != ok ]; then
    report+=$'\n'"fuzz: $target's report ($log):"$'\n'"$(grep -v '^#[0-9]' "$log" | tail -60)"
    report+=$'\n'"fuzz: the input is in $artifacts; fix the bug, then keep the input in $seeds/ so that"
    report+=$'\n'"      ctest -L fuzz replays it"
  fi
  if [ "${FUZZ_MERGE:-}" = 1 ]; then
    local before
    before=$(ls "$seeds" | wc -l)
    "$server_dir/$target" -merge=1 "${flags[@]}" "$seeds" "$corpus" >>"$log" 2>&1
    report+=$'\n'"fuzz: $target: merged $(($(ls "$seeds" | wc -l) - before)) inputs into $seeds"
  fi
  echo "$report"
  [ "$result" = ok ]
}

# One target per core at a time: each libFuzzer process is single-threaded.
failed=()
declare -A running=()  # pid -> target
for target in "${targets[@]}"; do
  while ((${#running[@]} >= $(nproc))); do
    status=0
    wait -n -p finished "${!running[@]}" || status=$?
    ((status == 0)) || failed+=("${running[$finished]}")
    unset "running[$finished]"
  done
  fuzz_one "$target" &
  running[$!]=$target
done
for pid in "${!running[@]}"; do wait "$pid" || failed+=("${running[$pid]}"); done

if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
