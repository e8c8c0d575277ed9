# free_port: prints a loopback port nothing listens on now, for the benchmark scripts that
# start a server on a port of their choosing (memcached cannot pick its own and report it).
# Source it from the repository root. Fails after 50 tries.
# wait_until_listening PORT: returns once something listens on loopback PORT; fails after
# 5 seconds.
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  echo "free_port: found no free loopback port" >&2
  return 1
}

wait_until_listening() {
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on port $1" >&2
  return 1
}
