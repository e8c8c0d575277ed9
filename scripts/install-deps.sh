#!/usr/bin/env bash
# Usage: install-deps.sh [--dotnet]
# Installs every system package the server's build, tests and benchmarks need (apt, as root
# or with sudo). Safe to run repeatedly: it installs only what is missing, and says so.
# With --dotnet it also checks that the .NET 10 SDK is present, which it does not install:
# only the targets that build or run .NET code pass it.
set -euo pipefail

# libcpp-httplib-dev: the management port's HTTP server; prometheus: promtool checks /metrics;
# chromium: the console's browser test (driven by puppeteer-core from npm); clang-14 and
# libclang-rt-14-dev: the sanitizer build, which is also the libFuzzer build (make fuzz);
# libbloom-dev: full eviction's bloom filters;
# openssl: the certificates of make run and the TLS tests (scripts/dev-certs.sh, test-certs.sh).
APT_PACKAGES=(
  cmake ninja-build g++ pkg-config clang-14 libclang-rt-14-dev
  libasio-dev libcli11-dev rapidjson-dev libspdlog-dev libfmt-dev
  libssl-dev openssl zlib1g-dev libsnappy-dev libtomlplusplus-dev libsimdjson-dev libboost-dev nodejs
  librocksdb-dev libbloom-dev libgtest-dev libgmock-dev libbenchmark-dev liburing-dev
  memcached libmemcached-tools valgrind linux-perf
  libcpp-httplib-dev prometheus chromium
)

# One dpkg-query for all of them: a warm `make run` should not pay a process per package.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${APT_PACKAGES[@]}" 2>/dev/null |
  awk '$NF == "installed" { print $1 }' || true)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  grep -qx "$pkg" <<<"$installed" || missing+=("$pkg")
done

if ((${#missing[@]})); then
  echo "install-deps: installing with apt-get (minutes on a fresh machine): ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Debian's nodejs leaves npm to a package of its own; other builds of nodejs bundle it, and
# conflict with that package.
if ! command -v npm >/dev/null 2>&1; then
  echo "install-deps: installing npm with apt-get (the compat suite's package manager)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
fi

if [ "${1:-}" = "--dotnet" ] && ! { command -v dotnet >/dev/null 2>&1 &&
                                    dotnet --list-sdks 2>/dev/null | grep -q '^10\.'; }; then
  cat >&2 <<'MESSAGE'
install-deps: this target needs the .NET 10 SDK, and `dotnet` with a 10.x SDK is not on PATH.
  Install it, then run the target again. Either:
  - the distribution's package where there is one, e.g. `sudo apt-get install dotnet-sdk-10.0`
    (Ubuntu, or Debian with Microsoft's package feed: https://learn.microsoft.com/dotnet/core/install/linux)
  - or Microsoft's install script, for the current user:
      curl -sSL https://dot.net/v1/dotnet-install.sh | bash -s -- --channel 10.0
      export PATH="$HOME/.dotnet:$PATH"
  The server alone needs no .NET: `make run` and `make test-server` work without it.
MESSAGE
  exit 1
fi
