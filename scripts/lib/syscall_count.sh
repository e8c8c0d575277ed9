# Counts a process's system calls with perf's syscall tracepoints, for the benchmarks that
# compare servers by the syscalls each request costs. Source it; it defines:
#   syscall_count_usable   true if perf can count syscall tracepoints here; otherwise prints
#                          one line saying why (perf missing, or the kernel refuses) and is false
#   syscall_count_start PID OUT
#                          starts counting every thread of PID into the file OUT
#   syscall_count_stop     stops the count started last and waits until OUT is written
#   syscall_count_per_op OUT OPS
#                          prints "total recv send epoll_wait epoll_ctl io_uring_enter", each
#                          per operation: recv is read/readv/recvfrom/recvmsg, send
#                          write/writev/sendto/sendmsg, epoll_wait includes epoll_pwait(2);
#                          total is every syscall. (io_uring's receives and sends are not
#                          syscalls: they ride on io_uring_enter.)

SYSCALL_COUNT_PID=

# The total (raw_syscalls) and the calls on a request's path, by tracepoint name.
SYSCALL_COUNT_EVENTS=raw_syscalls:sys_enter
for call in read readv recvfrom recvmsg write writev sendto sendmsg \
            epoll_wait epoll_pwait epoll_pwait2 epoll_ctl io_uring_enter; do
  SYSCALL_COUNT_EVENTS+=",syscalls:sys_enter_$call"
done

syscall_count_usable() {
  if ! command -v perf >/dev/null 2>&1; then
    echo "syscalls per op: not measured, perf is missing (Debian package linux-perf)"
    return 1
  fi
  local why
  if ! why=$(perf stat -x, -e "$SYSCALL_COUNT_EVENTS" -- true 2>&1 >/dev/null) ||
     grep -qi "not supported\|permission\|error" <<<"$why"; then
    echo "syscalls per op: not measured, perf cannot count syscall tracepoints here" \
         "(root, or kernel.perf_event_paranoid <= -1, and tracefs are needed): $(head -1 <<<"$why")"
    return 1
  fi
}

syscall_count_start() {
  perf stat -x, -e "$SYSCALL_COUNT_EVENTS" -p "$1" -o "$2" 2>/dev/null &
  SYSCALL_COUNT_PID=$!
  # perf attaches before it counts; a short pause keeps the run's first requests in the count.
  sleep 0.2
}

syscall_count_stop() {
  kill -INT "$SYSCALL_COUNT_PID" 2>/dev/null || true
  wait "$SYSCALL_COUNT_PID" 2>/dev/null || true
}

syscall_count_per_op() {
  awk -F, -v ops="$2" '
    /^#/ || NF < 3 { next }
    {
      name = $3; sub(/^(raw_)?syscalls:sys_enter_?/, "", name)
      count = $1 + 0
      if (name == "") total += count
      else if (name ~ /^(read|readv|recvfrom|recvmsg)$/) recv += count
      else if (name ~ /^(write|writev|sendto|sendmsg)$/) send += count
      else if (name ~ /^epoll_(wait|pwait|pwait2)$/) wait += count
      else if (name == "epoll_ctl") ctl += count
      else if (name == "io_uring_enter") enter += count
    }
    END {
      if (ops <= 0) ops = 1
      printf "%.2f %.2f %.2f %.2f %.2f %.2f\n",
             total / ops, recv / ops, send / ops, wait / ops, ctl / ops, enter / ops
    }' "$1"
}
