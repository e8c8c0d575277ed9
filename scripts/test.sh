#!/usr/bin/env bash
# Runs every test: the server's suites, memccapable and the official Couchbase Node.js SDK
# against a live ternd, and the .NET SDK's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-server.sh build/release Release
for io in epoll uring; do TERND_ARGS="--io $io" bash scripts/test-memccapable.sh build/release; done
bash scripts/test-compat.sh build/release/server/ternd
if [ -f dotnet/Tern.sln ]; then bash scripts/test-dotnet.sh; fi
