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

# The transaction interoperability tests run the official Node.js SDK beside Tern.Client.
source scripts/lib/compat_npm.sh
compat_npm_install

# A hung test fails the run (with a dump of where it hung) instead of stalling CI.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
dotnet test dotnet/Tern.sln -c Release -nologo \
  --blame-hang-timeout 4min \
  --logger "console;verbosity=normal" 2>&1 | tee "$log" || status=$?
# The test projects run in parallel and their output interleaves: a failure scrolls out of
# sight (CI shows only the end of the output). Repeat each failure, with its message, last.
if ((status != 0)); then
  echo "test-dotnet: FAILED (exit $status). The failures, again:"
  grep -E -A 25 '^\s*Failed [A-Za-z]|^\s*\[xUnit.net [^]]*\].*\[FAIL\]|aborted|Test Run Aborted' "$log" |
    head -300 || true
  exit "$status"
fi
