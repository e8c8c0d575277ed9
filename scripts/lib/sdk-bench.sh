# What the SDK benchmark scripts (bench-sdk.sh, bench-sdk-alloc.sh) share; source it from the
# repository root with `name` (for messages) and `out` (a folder for logs) set. It builds what
# is missing and defines:
#   ternd, server_threads   the ternd binary (TERND=path) and worker threads (SERVER_THREADS, default 2)
#   project, dll            Tern.Benchmarks, built; DOTNET_ARTIFACTS=dir builds it there instead
#   wait_for_port LOG PID [WHAT]
#                           prints the port once LOG holds "WHAT ADDR:PORT" (default: ternd's
#                           "ternd VERSION listening on", not the management or TLS port's line)
#   start_dev_ternd         starts ternd with server/config/dev.toml on a free port: sets ternd_pid, ternd_port;
#                           with dev_tls=1 also a TLS port (development certificates in $out/tls,
#                           clients trust $out/tls/ca.pem): sets ternd_tls_port
#   machine_line [MORE]     the "machine: ..." line every report starts with
#   dev_ternd_benchmark CLASS [ARGS]
#                           BenchmarkDotNet's benchmarks of CLASS (Tern.Benchmarks.Ns.Class) against a
#                           dev ternd it starts (TERND_ADDRESS), log in $out/run.log; prints the
#                           GitHub table and sets report to its file
# As root, the caller then runs ahead of builds sharing the machine (only root may raise priority).

[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
ternd=${TERND:-build/release/server/ternd}
server_threads=${SERVER_THREADS:-2}
[ -x "$ternd" ] || bash scripts/build-server.sh build/release Release
project=dotnet/bench/Tern.Benchmarks
if [ -n "${DOTNET_ARTIFACTS:-}" ]; then
  dotnet build "$project" -c Release -nologo -v q --artifacts-path "$DOTNET_ARTIFACTS" >/dev/null
  dll=$(realpath "$DOTNET_ARTIFACTS")/bin/Tern.Benchmarks/release/Tern.Benchmarks.dll
else
  dotnet build "$project" -c Release -nologo -v q >/dev/null
  dll=$PWD/$project/bin/Release/net10.0/Tern.Benchmarks.dll
fi

wait_for_port() {
  local log=$1 pid=$2 what=${3:-ternd [^ ]* listening on} port
  for _ in $(seq 1 100); do
    port=$(sed -n "s/.*$what [^ ]*:\([0-9][0-9]*\).*/\1/p" "$log" | head -n 1)
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "$name: server did not start; its log:" >&2
  cat "$log" >&2
  return 1
}

# dev.toml's bucket is persistent: each start gets a fresh data directory under $out (build/,
# git-ignored), never the developer's data/.
start_dev_ternd() {
  rm -rf "$out/ternd-data"
  local tls=()
  if [ "${dev_tls:-0}" = 1 ]; then
    bash scripts/dev-certs.sh "$out/tls"
    tls=(--tls-port 0 --mgmt-tls-port none --tls-certificate "$out/tls/server.pem" --tls-private-key "$out/tls/server.key")
  fi
  "$ternd" --config server/config/dev.toml --port 0 --mgmt-port none --threads "$server_threads" \
    --data-dir "$out/ternd-data" "${tls[@]}" 2>"$out/ternd.log" &
  ternd_pid=$!
  ternd_port=$(wait_for_port "$out/ternd.log" "$ternd_pid")
  if [ "${dev_tls:-0}" = 1 ]; then
    ternd_tls_port=$(wait_for_port "$out/ternd.log" "$ternd_pid" "TLS listening on")
  fi
}

machine_line() {
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
    ".NET $(dotnet --list-runtimes | sed -n 's/^Microsoft.NETCore.App \([^ ]*\).*/\1/p' | tail -n 1),${1:+ $1,}" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
}

dev_ternd_benchmark() {
  local class=$1
  shift
  # BenchmarkDotNet's usual child process is a rebuild in the project's own folders: in-process instead.
  [ -z "${DOTNET_ARTIFACTS:-}" ] || set -- --inProcess "$@"
  trap 'kill "${ternd_pid:-}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
  start_dev_ternd
  # BenchmarkDotNet's child processes inherit it.
  export TERND_ADDRESS=127.0.0.1:$ternd_port
  machine_line
  echo "server: ternd --config server/config/dev.toml --threads $server_threads"
  # BenchmarkDotNet rebuilds the project for its child process: run it from the project folder.
  if ! (cd "$project" && dotnet "$dll" --filter "$class*" --artifacts "$out" "$@") >"$out/run.log" 2>&1; then
    tail -n 40 "$out/run.log" >&2
    echo "$name: BenchmarkDotNet failed; full log in $out/run.log" >&2
    exit 1
  fi
  report=$(ls "$out"/results/*"${class##*.}"-report-github.md 2>/dev/null || true)
  [ -n "$report" ] || { echo "$name: no table; see $out/run.log" >&2; exit 1; }
  cat "$report"
}
