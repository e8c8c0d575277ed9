#!/usr/bin/env bash
# Usage: build-server.sh BUILD_DIR BUILD_TYPE [SANITIZER [TARGET...]]
# SANITIZER is empty, "address" (ASan + UBSan) or "thread" (TSan). With TARGETs it builds
# only those (and what they need), else everything: tests and benchmarks too.
# Prints one line per phase; the build tools speak only when something fails or warns.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
build_type=${2:-Release}
sanitizer=${3:-}
targets=("${@:4}")
server_dir=$build_dir/server

# Configure only when the build directory lacks it or was set up differently: building runs
# CMake again by itself when a CMakeLists.txt changes, and a warm `make run` must stay fast.
cache=$server_dir/CMakeCache.txt
if [ ! -f "$server_dir/build.ninja" ] ||
   ! grep -sqx "CMAKE_BUILD_TYPE:STRING=$build_type" "$cache" ||
   ! grep -sqx "TERN_SANITIZER:STRING=$sanitizer" "$cache"; then
  echo "build-server: configuring $server_dir ($build_type${sanitizer:+, sanitizer $sanitizer})"
  cmake -S server -B "$server_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE="$build_type" -DTERN_SANITIZER="$sanitizer" >/dev/null
fi

echo "build-server: building ${targets[*]:-every server target} in $server_dir"
target_args=()
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
cmake --build "$server_dir" -j "$(nproc)" "${target_args[@]}" -- --quiet |
  { grep -vx 'ninja: no work to do.' || true; }
