#!/usr/bin/env bash
# Usage: build-server.sh BUILD_DIR BUILD_TYPE [SANITIZER]
# SANITIZER is empty, "address" (ASan + UBSan) or "thread" (TSan).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
build_type=${2:-Release}
sanitizer=${3:-}
cmake -S server -B "$build_dir/server" -G Ninja \
  -DCMAKE_BUILD_TYPE="$build_type" -DTERN_SANITIZER="$sanitizer" >/dev/null
cmake --build "$build_dir/server" -j "$(nproc)"
