#!/usr/bin/env bash
# Usage: scripts/cluster.sh up N | down | status
#
# A local N-node ternd "cluster" for routing tests: N ternd processes on 127.0.0.1, each
# owning a contiguous share of the 1024 vbuckets (vbucket i belongs to node floor(i*N/1024)),
# told so with SET_CLUSTER_CONFIG and SET_VBUCKET by scripts/cluster-admin.mjs.
#
#   up N    starts the nodes (or reuses them when N are already up), installs the map, and
#           prints the connection string and the credentials
#   down    stops them: SIGTERM, then SIGKILL for any still alive after 20 s; exits 1 when a
#           node it stopped did not stop cleanly (its log says whether it did)
#   status  one line per node; exits 0 when every node is up, 3 otherwise
#
# Environment: TERND (default build/release/server/ternd), TERND_CONFIG (default
# server/config/dev.toml), TERND_ARGS (more ternd flags), BASE_PORT (default 12000: the
# first port tried; taken ones are skipped), CLUSTER_DIR (default build/cluster: pids,
# ports, one log and one --data-dir per node: nodeI.data, fresh at each start and removed by
# down, so nodes never share a couchbase bucket's files), CB_USER / CB_PASSWORD (default
# Administrator / password).
# Both up and down are safe to repeat.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${CLUSTER_DIR:-build/cluster}
ternd=${TERND:-build/release/server/ternd}
config=${TERND_CONFIG:-server/config/dev.toml}
base_port=${BASE_PORT:-12000}
user=${CB_USER:-Administrator}
password=${CB_PASSWORD:-password}
read -r -a extra_args <<< "${TERND_ARGS:-}"
admin=(node scripts/cluster-admin.mjs --user "$user" --password "$password")

say() { echo "cluster: $*"; }
die() { echo "cluster: $*" >&2; exit 1; }

# A pid from our state that still runs ternd (and not some later process given the same pid).
alive() {
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q ternd
}

port_taken() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

node_count() {
  if [ -f "$dir/ports" ]; then wc -w < "$dir/ports"; else echo 0; fi
}

pids() {
  local f
  for f in "$dir"/node*.pid; do [ -f "$f" ] && cat "$f"; done
  return 0
}

all_alive() {
  local n=$1 i
  [ "$(node_count)" -eq "$n" ] || return 1
  for ((i = 0; i < n; i++)); do alive "$(cat "$dir/node$i.pid" 2>/dev/null || true)" || return 1; done
}

conn_string() {
  local p list=""
  for p in $(cat "$dir/ports"); do list+="${list:+,}127.0.0.1:$p"; done
  echo "couchbase://$list"
}

print_info() {
  say "$(node_count) node(s) up; logs in $dir/"
  say "connection string: $(conn_string)"
  say "credentials: $user / $password, bucket default"
}

# Starts node $1 on the first free port from $2; prints the port it got.
start_node() {
  local i=$1 port=$2 attempt pid log="$dir/node$1.log" data="$dir/node$1.data"
  for ((attempt = 0; attempt < 50; attempt++, port++)); do
    port_taken "$port" && continue
    rm -rf "$data"
    "$ternd" --config "$config" --port "$port" --mgmt-port 0 --data-dir "$data" "${extra_args[@]}" \
      < /dev/null > "$log" 2>&1 &
    pid=$!
    # Wait for its "listening on" and "ternd ready" lines (a persistent bucket answers
    # Etmpfail until warm), or for it to die (a port taken meanwhile: try the next).
    local waited
    for ((waited = 0; waited < 300; waited++)); do
      if grep -q "listening on 127.0.0.1:$port" "$log" 2>/dev/null &&
         grep -q "ternd ready" "$log" 2>/dev/null; then
        echo "$pid" > "$dir/node$i.pid"
        echo "$port"
        return 0
      fi
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
      die "node $i (port $port) printed no 'listening on' line within 30 s; see $log"
    fi
    wait "$pid" 2>/dev/null || true
    grep -qi "in use" "$log" || die "node $i failed to start; its log ($log):$(echo; tail -20 "$log")"
  done
  die "no free port for node $i from $2"
}

cmd_down() {
  local pid live=() i f unclean=()
  # The nodes this stops must stop cleanly. They are not this shell's children, so their exit
  # status is out of reach: a clean stop is told by the line ternd logs last, "ternd stopped
  # cleanly".
  local stopping_logs=()
  for f in "$dir"/node*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    alive "$pid" || continue
    kill -TERM "$pid" 2>/dev/null || true
    live+=("$pid")
    stopping_logs+=("${f%.pid}.log")
  done
  for ((i = 0; i < 200 && ${#live[@]} > 0; i++)); do
    local still=()
    for pid in "${live[@]}"; do alive "$pid" && still+=("$pid"); done
    live=("${still[@]+"${still[@]}"}")
    [ ${#live[@]} -gt 0 ] && sleep 0.1
  done
  for pid in "${live[@]+"${live[@]}"}"; do
    say "pid $pid ignored SIGTERM for 20 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  done
  for f in "${stopping_logs[@]+"${stopping_logs[@]}"}"; do
    grep -q "ternd stopped cleanly" "$f" 2>/dev/null || unclean+=("$f")
  done
  rm -f "$dir"/node*.pid "$dir/ports" "$dir/connstr"
  rm -rf "$dir"/node*.data
  for f in "${unclean[@]+"${unclean[@]}"}"; do
    echo "cluster: a node did not stop cleanly on SIGTERM; the end of its log ($f):" >&2
    tail -n 20 "$f" >&2
  done
  [ ${#unclean[@]} -eq 0 ] || exit 1
}

cmd_up() {
  local n=${1:-}
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 64 ] || die "usage: cluster.sh up N (1 to 64 nodes)"
  [ -x "$ternd" ] || die "no ternd at $ternd: build it (scripts/build-server.sh) or set TERND"
  [ -f "$config" ] || die "no config at $config"
  command -v node > /dev/null || die "node is needed (scripts/cluster-admin.mjs)"
  if all_alive "$n"; then
    say "already up"
    print_info
    return 0
  fi
  [ "$(node_count)" -gt 0 ] || [ -n "$(pids)" ] && { say "stopping the previous cluster"; cmd_down; }
  mkdir -p "$dir"
  local ports=() port=$base_port i
  for ((i = 0; i < n; i++)); do
    port=$(start_node "$i" "$port") || { cmd_down; exit 1; }
    ports+=("$port")
    port=$((port + 1))
  done
  echo "${ports[*]}" > "$dir/ports"
  local csv
  csv=$(IFS=,; echo "${ports[*]}")
  if ! "${admin[@]}" wait --ports "$csv" --timeout-ms 30000 ||
     ! "${admin[@]}" setup --ports "$csv"; then
    cmd_down
    die "the nodes did not take the cluster map; logs in $dir/"
  fi
  conn_string > "$dir/connstr"
  print_info
}

cmd_status() {
  local n i pid ok=0
  n=$(node_count)
  if [ "$n" -eq 0 ]; then say "not up"; return 3; fi
  read -r -a ports < "$dir/ports"
  for ((i = 0; i < n; i++)); do
    pid=$(cat "$dir/node$i.pid" 2>/dev/null || true)
    if alive "$pid"; then
      say "node $i: 127.0.0.1:${ports[$i]} pid $pid up"
    else
      say "node $i: 127.0.0.1:${ports[$i]} down"
      ok=3
    fi
  done
  say "connection string: $(conn_string)"
  return $ok
}

case "${1:-}" in
  up) cmd_up "${2:-}" ;;
  down) cmd_down; say "down" ;;
  status) cmd_status ;;
  *) die "usage: cluster.sh up N | down | status" ;;
esac
