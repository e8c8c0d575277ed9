#!/usr/bin/env bash
# Runs the .NET SDK's tests: codec vectors, unit tests, and integration and fault tests against
# real memcached and ternd processes. Exits non-zero if any test fails; prints the runner's summary.
set -euo pipefail
cd "$(dirname "$0")/.."

export TERND_PATH="${TERND_PATH:-$PWD/build/release/server/ternd}"
# The ternd tests are part of the suite: build the server rather than skip them.
if [ ! -x "$TERND_PATH" ]; then
  bash scripts/build-server.sh build/release Release
fi

# A hung test fails the run (with a dump of where it hung) instead of stalling CI.
dotnet test dotnet/Tern.sln -c Release -nologo \
  --blame-hang-timeout 4min \
  --logger "console;verbosity=normal"
