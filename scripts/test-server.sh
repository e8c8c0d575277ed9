#!/usr/bin/env bash
# Usage: test-server.sh BUILD_DIR BUILD_TYPE [SANITIZER]
# Builds the server and runs its GoogleTest suites (unit and end-to-end) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
build_type=${2:-Release}
sanitizer=${3:-}
targets=()
label_args=()
# Under TSan only the executor's suites and the items' run: they are the concurrent core
# (the pool, and the reference counts every thread shares). So only they are built, which
# keeps CI's TSan stage to a few minutes.
if [ "$sanitizer" = "thread" ]; then
  targets=(executor_tests item_tests)
  label_args=(-L '^(executor|items)$')
fi
bash scripts/build-server.sh "$build_dir" "$build_type" "$sanitizer" "${targets[@]}"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
ctest --test-dir "$build_dir/server" --output-on-failure -j "$(nproc)" "${label_args[@]}"
