#!/usr/bin/env bash
# Usage: build-server.sh BUILD_DIR BUILD_TYPE [SANITIZER [TARGET...]]
# SANITIZER is empty, "address" (ASan + UBSan) or "thread" (TSan). With TARGETs it builds
# only those (and what they need), else everything: tests and benchmarks too.
# The address build is made by clang with libFuzzer's instrumentation (TERN_FUZZ): one
# sanitizer build serves both the tests under ASan and `make fuzz`'s targets.
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
compiler_args=()
fuzz=OFF
if [ "$sanitizer" = "address" ]; then
  compiler_args=(-DCMAKE_CXX_COMPILER=clang++-14)
  fuzz=ON
fi
if [ ! -f "$server_dir/build.ninja" ] ||
   ! grep -sqx "CMAKE_BUILD_TYPE:STRING=$build_type" "$cache" ||
   ! grep -sqx "TERN_SANITIZER:STRING=$sanitizer" "$cache" ||
   ! grep -sqx "TERN_FUZZ:BOOL=$fuzz" "$cache"; then
  echo "build-server: configuring $server_dir ($build_type${sanitizer:+, sanitizer $sanitizer})"
  # CMake keeps the compiler a directory was first configured with: a directory configured
  # with the other compiler starts afresh.
  if [ -f "$cache" ]; then
    was_clang=OFF
    grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang' "$cache" && was_clang=ON
    [ "$was_clang" = "$fuzz" ] || rm -rf "$cache" "$server_dir/CMakeFiles"
  fi
  cmake -S server -B "$server_dir" -G Ninja "${compiler_args[@]}" -DTERN_FUZZ="$fuzz" \
    -DCMAKE_BUILD_TYPE="$build_type" -DTERN_SANITIZER="$sanitizer" >/dev/null
fi

echo "build-server: building ${targets[*]:-every server target} in $server_dir"
target_args=()
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
cmake --build "$server_dir" -j "$(nproc)" "${target_args[@]}" -- --quiet |
  { grep -vx 'ninja: no work to do.' || true; }
