#!/usr/bin/env bash
# Usage: bench-server.sh [BUILD_DIR]
# Runs the same memaslap (memcaslap) load against ternd, once per I/O backend, and Debian's
# memcached, all on loopback free ports with the same number of worker threads, and prints
# throughput, latency and the ratio of each ternd to memcached; each ternd also runs the load
# while a scraper polls its GET /metrics (the row "ternd-<io>+scrape", same process, same run),
# to show what a Prometheus scraper costs the KV port; then, from one more run of each mode with perf counting
# the server process's syscall tracepoints, the syscalls each operation cost (skipped, with a
# line saying why, where perf is missing or refused). Environment knobs (defaults in brackets):
#   SERVER_THREADS [1]  worker threads of each server
#   CLIENT_THREADS [1]  memaslap threads
#   CONNECTIONS    [64] concurrent connections
#   SECONDS_PER_RUN [8] duration of each run
#   RUNS           [3]  runs per server and mode; the table shows medians
#   PIPELINE_DEPTH [16] keys per multi-get in the pipelined mode
#   IO_BACKENDS    [epoll uring] the ternd --io backends to run, each a server of its own
#   SCRAPE_INTERVAL [0.1] seconds between the scraper's GET /metrics (0: no scraper rows)
#   TERND          [BUILD_DIR/server/ternd, built first] a ternd binary (absolute, or from the
#                  repository root) to run as is instead: say, one built from an older commit,
#                  to compare before and after
#   BASE           [none] a commit whose ternd (built once: build/bench-base/<commit>/ternd)
#                  runs beside this tree's in the same runs, as "ternd-base-<io>", so that a
#                  change is measured against the code before it on the same machine at the
#                  same time; the table then gives this ternd's ratios to it too
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/free_port.sh
source scripts/lib/syscall_count.sh
source scripts/lib/base_build.sh
build_dir=${1:-build/release}
server_threads=${SERVER_THREADS:-1}
client_threads=${CLIENT_THREADS:-1}
connections=${CONNECTIONS:-64}
seconds=${SECONDS_PER_RUN:-8}
runs=${RUNS:-3}
depth=${PIPELINE_DEPTH:-16}
read -r -a backends <<< "${IO_BACKENDS:-epoll uring}"
scrape_interval=${SCRAPE_INTERVAL:-0.1}

ternd=${TERND:-$build_dir/server/ternd}
[ -n "${TERND:-}" ] || bash scripts/build-server.sh "$build_dir" Release >/dev/null
# The machine is shared: as root, run the servers and the load generator ahead of other work.
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null

work=$(mktemp -d)
base_rev=${BASE:-}
pids=()
cleanup() {
  [ -z "${scraper_pid:-}" ] || kill "$scraper_pid" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Load: 16-byte keys, 100-byte values, 9 GETs to 1 SET.
cat >"$work/load.cfg" <<'CFG'
key
16 16 1
value
100 100 1
cmd
0 0.1
1 0.9
CFG

# Each server by name: ternd-epoll, ternd-uring, memcached; "ternd-<io>+scrape" is the same
# ternd, loaded while the scraper polls its management port (scrape_port_of names it for those
# rows alone).
declare -A pid_of port_of scrape_port_of mgmt_port_of
servers=()
# Starts the ternd binary $1 as server $2 on backend $3 (its management port: mgmt_port_of).
start_ternd() {
  local binary=$1 name=$2 io=$3 port mgmt_port
  port=$(free_port)
  mgmt_port=$(free_port)
  "$binary" --port "$port" --mgmt-port "$mgmt_port" --threads "$server_threads" --io "$io" \
    2>"$work/$name.log" &
  pids+=("$!")
  pid_of[$name]=$! port_of[$name]=$port mgmt_port_of[$name]=$mgmt_port servers+=("$name")
  wait_until_listening "$port"
  wait_until_listening "$mgmt_port"
  grep -q " threads on $io" "$work/$name.log" ||
    { echo "bench-server: $name is not serving on $io:" >&2; cat "$work/$name.log" >&2; exit 1; }
}
base_binary=
if [ -n "$base_rev" ]; then
  base_binary=$(TERND_WORK=$work base_ternd "$base_rev")
fi
for io in "${backends[@]}"; do
  start_ternd "$ternd" "ternd-$io" "$io"
  if [ "$scrape_interval" != 0 ]; then
    pid_of[ternd-$io+scrape]=${pid_of[ternd-$io]} port_of[ternd-$io+scrape]=${port_of[ternd-$io]}
    servers+=("ternd-$io+scrape")
    scrape_port_of[ternd-$io+scrape]=${mgmt_port_of[ternd-$io]}
  fi
  [ -z "$base_binary" ] || start_ternd "$base_binary" "ternd-base-$io" "$io"
done

memcached_port=$(free_port)
user_args=()
[ "$(id -u)" -eq 0 ] && user_args=(-u nobody)
memcached "${user_args[@]}" -B binary -t "$server_threads" -p "$memcached_port" -U 0 \
  -l 127.0.0.1 -m 1024 -c 4096 &
pids+=("$!")
pid_of[memcached]=$! port_of[memcached]=$memcached_port servers+=(memcached)
wait_until_listening "$memcached_port"

# Server CPU time so far, in clock ticks: user, then system.
cpu_ticks() { awk '{ print $14, $15 }' "/proc/$1/stat"; }
ticks_per_second=$(getconf CLK_TCK)

# One memaslap run against the server with pid $1 on port $2, multi-gets of $3 keys; prints
# "ops/s p50_us p99_us server_cpu_us_per_op user_us_per_op system_us_per_op ops" (the CPU split
# tells the kernel's share, the sockets' work both servers pay alike, from the server's own).
# With $4, perf counts the server's syscalls
# into that file meanwhile. memaslap reports latency as a log2 histogram
# (bucket r holds latencies in (2^(r-1), 2^r] us); percentiles are interpolated inside it.
run_load() {
  local pid=$1 port=$2 division=$3 syscalls=${4:-} out="$work/run.out" before after
  [ -z "$syscalls" ] || syscall_count_start "$pid" "$syscalls"
  before=$(cpu_ticks "$pid")
  memcaslap -s "127.0.0.1:$port" --binary -T "$client_threads" -c "$connections" \
    -t "${seconds}s" -S "${seconds}s" -d "$division" -w 1k -F "$work/load.cfg" >"$out" 2>&1
  after=$(cpu_ticks "$pid")
  [ -z "$syscalls" ] || syscall_count_stop
  awk -v before="$before" -v after="$after" -v hz="$ticks_per_second" '
    /^Total Statistics \(/ { in_total = 1; next }
    in_total && /Log2 Dist/ { in_dist = 1; next }
    in_dist && /^ *[0-9]+:/ {
      base = $1; sub(":", "", base)
      for (i = 2; i <= NF; i++) { count[base + i - 2] = $i; total += $i }
      next
    }
    in_dist { in_dist = 0; in_total = 0 }
    /^Run time:/ {
      for (i = 1; i <= NF; i++) { if ($i == "TPS:") tps = $(i + 1); if ($i == "Ops:") ops = $(i + 1) }
    }
    # The latency below which a fraction q of the requests fall, interpolated linearly
    # inside its log2 bucket.
    function percentile(q,    r, seen, target, low) {
      target = q * total
      for (r = 0; r < 64; r++) {
        if (seen + count[r] >= target && count[r] > 0) {
          low = r == 0 ? 0 : 2 ^ (r - 1)
          return int(low + (2 ^ r - low) * (target - seen) / count[r])
        }
        seen += count[r]
      }
    }
    END {
      p50 = percentile(0.50); p99 = percentile(0.99)
      split(before, b, " "); split(after, a, " ")
      user_us = (a[1] - b[1]) / hz * 1e6 / ops; sys_us = (a[2] - b[2]) / hz * 1e6 / ops
      printf "%s %s %s %.2f %.2f %.2f %s\n", tps, p50, p99, user_us + sys_us, user_us, sys_us, ops
    }' "$out"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Polls GET /metrics on port $1 every $scrape_interval s until killed, as a Prometheus server
# would (HTTP/1.0-style: one connection per scrape), and when killed writes to file $2 how many
# scrapes were answered 200. One node process that reads each answer in large chunks: the
# scraper shares the machine with the load, so its own CPU must stay small (a bash loop that
# read the answer with builtins made one read syscall per byte, and cost the load more than the
# scrapes cost ternd).
scraper() {
  exec node -e '
    const [port, interval, file] = process.argv.slice(1);
    const http = require("http");
    let answered = 0;
    process.on("SIGTERM", () => { require("fs").writeFileSync(file, String(answered)); process.exit(0); });
    const next = () => setTimeout(poll, Number(interval) * 1000);
    const poll = () => http.get({ host: "127.0.0.1", port, path: "/metrics", agent: false }, (res) => {
      if (res.statusCode === 200) answered++;
      res.resume();
      res.on("end", next);
    }).on("error", next);
    poll();' "$1" "$scrape_interval" "$2"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
     "load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "load: memcaslap --binary -T $client_threads -c $connections -t ${seconds}s, 16 B keys," \
     "100 B values, GET:SET 9:1; pipelined = multi-get of $depth keys (-d $depth)"
echo "servers: $ternd --threads $server_threads --io {${backends[*]}}; memcached -B binary -t $server_threads"
[ -z "$base_binary" ] || echo "base: $base_binary (commit $(git rev-parse --short "$base_rev^{commit}")) as ternd-base-{${backends[*]}}"
echo

declare -A results
for run in $(seq "$runs"); do
  # Rotate which server goes first, so none always runs on the warmer machine.
  shift_by=$(( (run - 1) % ${#servers[@]} ))
  order=("${servers[@]:shift_by}" "${servers[@]:0:shift_by}")
  for mode in unpipelined pipelined; do
    division=1
    [ "$mode" = pipelined ] && division=$depth
    for server in "${order[@]}"; do
      scraper_pid=
      if [ -n "${scrape_port_of[$server]:-}" ]; then
        scraper "${scrape_port_of[$server]}" "$work/scrapes" &
        scraper_pid=$!
      fi
      line=$(run_load "${pid_of[$server]}" "${port_of[$server]}" "$division")
      scrapes=
      if [ -n "$scraper_pid" ]; then
        kill "$scraper_pid" && wait "$scraper_pid" 2>/dev/null || true
        scrapes=", $(cat "$work/scrapes") scrapes"
      fi
      echo "run $run  $mode  $server: ops/s p50_us p99_us cpu_us/op user system ops = $line$scrapes"
      results["$server/$mode"]+="$line"$'\n'
    done
  done
done

for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { echo "bench-server: a server died" >&2; exit 1; }; done

column() { printf "%s" "${results[$1]}" | awk -v c="$2" 'NF { print $c }' | median; }

echo
echo "Medians of $runs runs. Latency: interpolated inside memaslap's log2 histogram buckets."
echo "CPU: server user+system CPU time per operation (robust to machine noise), and its split."
printf "%-12s %-19s %10s %10s %10s %12s %10s %10s\n" mode server "ops/s" "p50 (us)" "p99 (us)" \
  "CPU us/op" "user" "system"
for mode in unpipelined pipelined; do
  for server in "${servers[@]}"; do
    printf "%-12s %-19s %10s %10s %10s %12s %10s %10s\n" "$mode" "$server" \
      "$(column "$server/$mode" 1)" "$(column "$server/$mode" 2)" "$(column "$server/$mode" 3)" \
      "$(column "$server/$mode" 4)" "$(column "$server/$mode" 5)" "$(column "$server/$mode" 6)"
  done
  for io in "${backends[@]}"; do
    awk -v a="$(column "ternd-$io/$mode" 1)" -v b="$(column "memcached/$mode" 1)" \
        -v ca="$(column "ternd-$io/$mode" 4)" -v cb="$(column "memcached/$mode" 4)" -v m="$mode" \
        -v s="ternd-$io" \
      'BEGIN { printf "%-12s %s/memcached: throughput %.2f, CPU per op %.2f\n", m, s, a / b, ca / cb }'
    [ -z "$base_binary" ] ||
      awk -v a="$(column "ternd-$io/$mode" 1)" -v b="$(column "ternd-base-$io/$mode" 1)" \
          -v ca="$(column "ternd-$io/$mode" 4)" -v cb="$(column "ternd-base-$io/$mode" 4)" \
          -v ua="$(column "ternd-$io/$mode" 5)" -v ub="$(column "ternd-base-$io/$mode" 5)" \
          -v m="$mode" -v s="ternd-$io" \
        'BEGIN { printf "%-12s %s/ternd-base: throughput %.2f, CPU per op %.2f, user CPU per op %.2f\n", m, s, a / b, ca / cb, ua / ub }'
    [ "$scrape_interval" = 0 ] ||
      awk -v a="$(column "ternd-$io+scrape/$mode" 1)" -v b="$(column "ternd-$io/$mode" 1)" \
          -v ca="$(column "ternd-$io+scrape/$mode" 4)" -v cb="$(column "ternd-$io/$mode" 4)" \
          -v m="$mode" -v s="ternd-$io" -v i="$scrape_interval" \
        'BEGIN { printf "%-12s %s scraped every %s s/not scraped: throughput %.3f, CPU per op %.3f\n", m, s, i, a / b, ca / cb }'
  done
done

# Syscalls per operation, from runs of their own: counting slows every syscall a little, so
# the runs above, which the throughput table comes from, are not counted.
echo
if syscall_count_usable; then
  echo "Syscalls per op: perf stat on the server process (all its threads) during one more" \
       "run of each mode, divided by the ops memaslap completed."
  echo "recv: read/readv/recvfrom/recvmsg; send: write/writev/sendto/sendmsg; total: every syscall."
  printf "%-12s %-16s %8s %8s %8s %11s %10s %12s\n" mode server total recv send epoll_wait \
    epoll_ctl io_uring_enter
  for mode in unpipelined pipelined; do
    division=1
    [ "$mode" = pipelined ] && division=$depth
    for server in "${servers[@]}"; do
      [ -z "${scrape_port_of[$server]:-}" ] || continue  # the scraper's rows: throughput only
      line=$(run_load "${pid_of[$server]}" "${port_of[$server]}" "$division" "$work/syscalls.csv")
      # The run's last field is the ops it completed.
      read -r total recv send wait ctl enter \
        <<<"$(syscall_count_per_op "$work/syscalls.csv" "${line##* }")"
      printf "%-12s %-16s %8s %8s %8s %11s %10s %12s\n" \
        "$mode" "$server" "$total" "$recv" "$send" "$wait" "$ctl" "$enter"
    done
  done
fi
