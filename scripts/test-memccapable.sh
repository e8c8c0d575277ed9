#!/usr/bin/env bash
# Usage: test-memccapable.sh BUILD_DIR
# Runs libmemcached's binary-protocol conformance suite (memccapable -b) against a fresh
# ternd on a free port. Fails if any test fails, the server dies, or it does not exit with
# status 0 on SIGTERM at the end; always stops the server.
# TERND_ARGS: more ternd flags (make test runs it once with --io epoll, once with --io uring).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
ternd="$build_dir/server/ternd"
[ -x "$ternd" ] || { echo "test-memccapable: $ternd not built" >&2; exit 1; }

log=$(mktemp)
server_pid=""
# On the way out after a failure: no ternd left behind (the clean stop is checked at the end).
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -KILL "$server_pid"
    wait "$server_pid" || true
  fi
  rm -f "$log"
}
trap stop_server EXIT

read -r -a extra_args <<< "${TERND_ARGS:-}"
"$ternd" --port 0 --mgmt-port none --threads 2 "${extra_args[@]}" 2>"$log" &
server_pid=$!

port=""
for _ in $(seq 100); do
  port=$(grep -oP 'listening on \S+:\K[0-9]+' "$log" || true)
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "test-memccapable: ternd did not start:" >&2
  cat "$log" >&2
  exit 1
fi

echo "memccapable -b against ternd ${TERND_ARGS:-} on 127.0.0.1:$port"
status=0
output=$(memccapable -h 127.0.0.1 -p "$port" -b -t 10 2>&1) || status=$?
echo "$output"

if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "test-memccapable: ternd died during the run; its log:" >&2
  cat "$log" >&2
  exit 1
fi
if [ "$status" -ne 0 ] || grep -q '\[FAIL\]' <<<"$output" || ! grep -q 'All tests passed' <<<"$output"; then
  echo "test-memccapable: FAILED" >&2
  exit 1
fi
# A clean stop is part of the test: SIGTERM must end ternd with status 0, within 20 s.
kill -TERM "$server_pid"
for _ in $(seq 200); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$server_pid" 2>/dev/null; then
  echo "test-memccapable: ternd did not stop within 20 s of SIGTERM; its log:" >&2
  cat "$log" >&2
  exit 1
fi
stop_status=0
wait "$server_pid" || stop_status=$?
server_pid=""
if [ "$stop_status" -ne 0 ]; then
  echo "test-memccapable: ternd exited with status $stop_status on SIGTERM; its log:" >&2
  cat "$log" >&2
  exit 1
fi
echo "test-memccapable: all binary-protocol tests passed, and ternd stopped cleanly"
