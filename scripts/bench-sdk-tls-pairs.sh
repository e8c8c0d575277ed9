#!/usr/bin/env bash
# Usage: bench-sdk-tls-pairs.sh
# Tern.Client over couchbases:// against couchbase:// in interleaved pairs, for a TLS/plain
# ratio that load drifting between rows moves less than bench-sdk's single rows. One ternd
# (dev.toml, development certificates, SERVER_THREADS worker threads); PAIRS pairs (default
# 5), each row its own `Tern.Benchmarks sdk` process of SECONDS (default 8; bench-sdk's load:
# 64 in flight, 90/10 get/upsert of 256-byte JSON), the order alternating (plain first in odd
# pairs). Prints each pair's ops/s and ratio, then the median ratio. With PERF=1, perf stat
# also reads the client's CPU time and send/recv syscalls for 3 s in the middle of the first
# pair's two rows, printed as CPU µs per operation (needs perf with tracepoints).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/bench-sdk-tls-pairs
name=bench-sdk-tls-pairs
mkdir -p "$out"
source scripts/lib/sdk-bench.sh
cleanup() { [ -z "${ternd_pid:-}" ] || kill "$ternd_pid" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
dev_tls=1 start_dev_ternd
machine_line
seconds=${SECONDS_PER_ROW:-8}

# One row: prints its ops/s (and, when asked, perf stat's counts on stderr-free lines).
row() {
  local url
  if [ "$1" = tls ]; then url=(--target "t=couchbases://127.0.0.1:$ternd_tls_port" --cacert "$out/tls/ca.pem")
  else url=(--target "t=couchbase://127.0.0.1:$ternd_port"); fi
  dotnet "$dll" sdk "${url[@]}" --seconds "$seconds" >"$out/row.txt" 2>&1 &
  local client=$!
  if [ "${2:-}" = perf ]; then
    sleep $((seconds / 2))
    perf stat -x, -e task-clock,syscalls:sys_enter_sendto,syscalls:sys_enter_recvfrom \
      -p "$client" -- sleep 3 2>"$out/perf-$1.txt" || true
  fi
  wait "$client"
  tail -1 "$out/row.txt" | awk -F'|' '{ gsub(/[ ,]/, "", $6); print $6 }'
}

ratios=()
for i in $(seq "${PAIRS:-5}"); do
  probe=; [ "$i" = 1 ] && [ "${PERF:-0}" = 1 ] && probe=perf
  if ((i % 2 == 1)); then
    plain=$(row plain $probe); tls=$(row tls $probe)
    [ -z "$probe" ] || { first_plain=$plain; first_tls=$tls; }
  else
    tls=$(row tls); plain=$(row plain)
  fi
  ratio=$(awk -v a="$tls" -v b="$plain" 'BEGIN { printf "%.3f", a / b }')
  ratios+=("$ratio")
  echo "pair $i: couchbase:// $plain ops/s, couchbases:// $tls ops/s, TLS/plain $ratio"
done
echo "median TLS/plain: $(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
if [ "${PERF:-0}" = 1 ]; then
  for mode in plain tls; do
    rate=$first_plain; [ "$mode" = tls ] && rate=$first_tls
    awk -F, -v mode="$mode" -v rate="$rate" '/task-clock/ { ms = $1 } /sendto/ { s = $1 }
      /recvfrom/ { r = $1 }
      END { ops = rate * 3; printf "%s: client CPU %.0f ms in 3 s, %.2f µs per op; %.0f ops per send, %.0f per recv\n",
            mode, ms, ms * 1000 / ops, ops / s, ops / r }' "$out/perf-$mode.txt"
  done
fi
