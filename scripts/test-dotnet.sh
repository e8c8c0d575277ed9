#!/usr/bin/env bash
# Runs the .NET SDK's tests: codec vectors, unit tests, and integration and fault tests against
# real memcached and ternd processes. Exits non-zero if any test fails; prints the runner's summary.
set -euo pipefail
cd "$(dirname "$0")/.."

# The ternd tests are part of the suite: build ternd and hold_fsync (which the durability tests
# run it under; a no-op when current) rather than skip them or test a stale binary.
# TERND_PATH=path tests another build as it is (HOLD_FSYNC_PATH=path names its hold_fsync).
if [ -z "${TERND_PATH:-}" ]; then
  bash scripts/build-server.sh build/release Release "" ternd hold_fsync
  export TERND_PATH=$PWD/build/release/server/ternd
  export HOLD_FSYNC_PATH=$PWD/build/release/server/hold_fsync
fi

# A hung test fails the run (with a dump of where it hung) instead of stalling CI.
dotnet test dotnet/Tern.sln -c Release -nologo \
  --blame-hang-timeout 4min \
  --logger "console;verbosity=normal"
