# What the benchmark scripts that start their own ternd share; source it from the repository
# root after setting TERND (the binary) and TERND_WORK (a directory the caller removes). One
# ternd at a time. It defines:
#   ternd_start CONFIG DATA_DIR [FLAG...]
#                     starts ternd --config CONFIG --data-dir DATA_DIR on a free loopback
#                     port and returns once it listens (it fails after TERND_LISTEN_TIMEOUT
#                     seconds, default 120: opening a store replays its write-ahead log
#                     first, which takes seconds after a large load); sets TERND_PID and
#                     TERND_PORT and logs to $TERND_WORK/ternd.log (appended)
#   ternd_stat NAME   prints the value of STAT NAME (the config's anonymous_bucket's view)
#   ternd_wait_warm   returns once ep_warmup_state is "done"; fails after TERND_WARM_TIMEOUT
#                     seconds (default 600)
#   ternd_stop        SIGTERM (ternd flushes what is queued), then waits; fails unless ternd
#                     exits with status 0
#   ternd_bench_config QUOTA_MB [TYPE [EVICTION]]
#                     writes $TERND_WORK/bench.toml and prints its path: one bucket `default`
#                     of QUOTA_MB, TYPE (default couchbase) and eviction policy EVICTION
#                     (value or full; default: the bucket type's), open to anonymous clients (the
#                     STAT client), and user `bench` (password `password`, every bucket) for
#                     kv_load
# A caller's EXIT trap calls ternd_kill, which ends a ternd still running.

source scripts/lib/free_port.sh

TERND_PID=
TERND_PORT=

ternd_start() {
  local config=$1 data_dir=$2
  shift 2
  TERND_PORT=$(free_port)
  "$TERND" --config "$config" --data-dir "$data_dir" --port "$TERND_PORT" --mgmt-port 0 "$@" \
    2>>"$TERND_WORK/ternd.log" &
  TERND_PID=$!
  local deadline=$((SECONDS + ${TERND_LISTEN_TIMEOUT:-120}))
  while [ "$SECONDS" -lt "$deadline" ]; do
    (exec 3<>"/dev/tcp/127.0.0.1/$TERND_PORT") 2>/dev/null && return 0
    kill -0 "$TERND_PID" 2>/dev/null || break
    sleep 0.02
  done
  echo "ternd does not listen on port $TERND_PORT:" >&2
  cat "$TERND_WORK/ternd.log" >&2
  return 1
}

ternd_stat() {
  python3 scripts/lib/ternd_stats.py "$TERND_PORT" "$1" | sed "s/^[^ ]* //"
}

ternd_wait_warm() {
  local deadline=$((SECONDS + ${TERND_WARM_TIMEOUT:-600}))
  until [ "$(ternd_stat ep_warmup_state 2>/dev/null)" = done ]; do
    if [ "$SECONDS" -ge "$deadline" ] || ! kill -0 "$TERND_PID" 2>/dev/null; then
      echo "ternd did not warm up" >&2
      return 1
    fi
    sleep 0.02
  done
}

ternd_stop() {
  kill -TERM "$TERND_PID"
  local status=0
  wait "$TERND_PID" || status=$?
  TERND_PID=
  if [ "$status" -ne 0 ]; then
    echo "ternd exited with status $status after SIGTERM:" >&2
    tail -20 "$TERND_WORK/ternd.log" >&2
    return 1
  fi
}

ternd_kill() {
  [ -z "$TERND_PID" ] || { kill "$TERND_PID" 2>/dev/null && wait "$TERND_PID" 2>/dev/null || true; }
  TERND_PID=
}

ternd_bench_config() {
  local config="$TERND_WORK/bench.toml"
  cat >"$config" <<TOML
[server]
listen = "127.0.0.1"
anonymous_bucket = "default"

[[bucket]]
name = "default"
type = "${2:-couchbase}"
memory_quota_mb = $1
${3:+eviction_policy = \"$3\"}

[[user]]
name = "bench"
buckets = ["*"]
password = "password"
TOML
  echo "$config"
}
