#!/usr/bin/env bash
# Runs the .NET SDK's tests: codec vectors, unit tests, and integration and fault tests against
# real memcached and ternd processes. Exits non-zero if any test fails; prints the runner's summary.
set -euo pipefail
cd "$(dirname "$0")/.."

export TERND_PATH="${TERND_PATH:-$PWD/build/release/server/ternd}"
filter=()
if [ ! -x "$TERND_PATH" ]; then
  echo "test-dotnet: WARNING: $TERND_PATH is not built; skipping the ternd tests (run make build-server)" >&2
  filter=(--filter "Server!=ternd")
fi

# A hung test fails the run (with a dump of where it hung) instead of stalling CI.
dotnet test dotnet/Tern.sln -c Release -nologo \
  --blame-hang-timeout 4min \
  --logger "console;verbosity=normal" \
  "${filter[@]}"
