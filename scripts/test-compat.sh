#!/usr/bin/env bash
# Usage: test-compat.sh [TERND]
# The official Couchbase Node.js SDK (npm couchbase, pinned by compat/package-lock.json)
# against a real ternd: compat/test/*.test.mjs under Node's test runner. Each test file starts
# what it needs (one ternd, or three through scripts/cluster.sh) and stops it. TERND defaults
# to build/release/server/ternd; it must already be built, and hold_fsync beside it (the
# durability tests hold ternd's fsyncs with it; HOLD_FSYNC names another). TERND_ARGS adds
# ternd flags to every server the tests start (TERND_ARGS="--io uring": the suite on the
# io_uring backend).
# npm ci runs only when compat/node_modules is missing or installed from another lockfile
# (scripts/lib/compat_npm.sh).
# To see the SDK's side of the wire: CBPPLOGLEVEL=trace CBPPLOGFILE=/tmp/cbpp.log (the C++
# core writes /tmp/cbpp.log.<n>.txt, one "MCBP send/recv {magic, opcode, status...}" line per
# frame); CNLOGLEVEL=debug for the Node layer's own log.
set -euo pipefail
cd "$(dirname "$0")/.."
export TERND=${1:-${TERND:-build/release/server/ternd}}
[ -x "$TERND" ] || { echo "test-compat: no ternd at $TERND (build it first)" >&2; exit 1; }
hold_fsync=${HOLD_FSYNC:-$(dirname "$TERND")/hold_fsync}
[ -x "$hold_fsync" ] || { echo "test-compat: no hold_fsync at $hold_fsync (build its target)" >&2; exit 1; }
source scripts/lib/compat_npm.sh
compat_npm_install

echo "test-compat: the Couchbase Node.js SDK $(node -p 'require("./compat/node_modules/couchbase/package.json").version') against $TERND"
cd compat
# One file at a time: each starts its own servers, and the machine may have two cores.
node --test --test-concurrency=1 --test-reporter=spec test/*.test.mjs
