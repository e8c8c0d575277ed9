#!/usr/bin/env bash
# Runs every test: the server's suites, memccapable and the official Couchbase Node.js SDK
# against a live ternd, and the .NET SDK's tests.
#
# The server's own suites (unit and end to end) run once, in the sanitizer build (clang,
# ASan + UBSan, which is also the fuzz targets' build), where they catch the most: building
# them a second time in release would cost CI minutes and find nothing more. The release
# ternd, the one users run, is what memccapable, the Node.js SDK and the .NET tests talk to.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-server.sh build/asan RelWithDebInfo address
bash scripts/build-server.sh build/release Release "" ternd hold_fsync
for io in epoll uring; do TERND_ARGS="--io $io" bash scripts/test-memccapable.sh build/release; done
# The Node.js SDK's suite on each I/O backend (about 2 minutes each), as memccapable: epoll is
# what ternd serves on where io_uring is refused (containers, older kernels).
for io in epoll uring; do TERND_ARGS="--io $io" bash scripts/test-compat.sh build/release/server/ternd; done
if [ -f dotnet/Tern.sln ]; then bash scripts/test-dotnet.sh; fi
