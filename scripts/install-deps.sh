#!/usr/bin/env bash
# Installs every system package the build, the tests and the benchmarks need.
# Safe to run repeatedly: it installs only what is missing.
set -euo pipefail

APT_PACKAGES=(
  cmake ninja-build g++ pkg-config
  libasio-dev libcli11-dev rapidjson-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  memcached libmemcached-tools valgrind
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v dotnet >/dev/null 2>&1; then
  echo "install-deps: the .NET 10 SDK (dotnet) is required but not on PATH" >&2
  exit 1
fi
