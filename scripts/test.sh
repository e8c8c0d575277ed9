#!/usr/bin/env bash
# Runs every test: the server's suites, memccapable against a live ternd, and the .NET SDK's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-server.sh build/release Release
bash scripts/test-memccapable.sh build/release
if [ -f dotnet/Tern.sln ]; then bash scripts/test-dotnet.sh; fi
