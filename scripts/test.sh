#!/usr/bin/env bash
# Runs every test: the server's suites, memccapable and the official Couchbase Node.js SDK
# against a live ternd, and the .NET SDK's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-server.sh build/release Release
bash scripts/test-memccapable.sh build/release
bash scripts/test-compat.sh build/release/server/ternd
if [ -f dotnet/Tern.sln ]; then bash scripts/test-dotnet.sh; fi
