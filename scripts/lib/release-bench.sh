# What the benchmarks against one Release ternd and its bench bucket share (bench-scan.sh,
# bench-transactions.sh, bench-scan-tern.sh); source it from the repository root with
# `build_dir` set, after naming in `bench_targets` the server programs to build besides ternd
# and in `bench_runtime` the client runtime the machine line names ("node" or "dotnet").
# It builds them (Release), installs compat's npm packages when package-lock.json changed,
# sets TERND and TERND_WORK, sources ternd.sh with an EXIT trap that stops ternd and removes
# the work folder, and prints the "machine: ..." line. As root, the benchmark then runs ahead
# of builds sharing the machine (only root may raise priority).

bash scripts/build-server.sh "$build_dir" Release "" ternd ${bench_targets:-} >/dev/null
if [ "${bench_runtime:-node}" = node ]; then
  stamp=compat/node_modules/.tern-lock-stamp
  if [ ! -f "$stamp" ] || ! cmp -s compat/package-lock.json "$stamp"; then
    (cd compat && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp compat/package-lock.json "$stamp"
  fi
  runtime="Node.js $(node --version)"
else
  runtime=".NET $(dotnet --list-runtimes | sed -n 's/^Microsoft.NETCore.App \([^ ]*\).*/\1/p' | tail -n 1)"
fi
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
TERND="$build_dir/server/ternd"
TERND_WORK=$(mktemp -d)
source scripts/lib/ternd.sh
trap 'ternd_kill; rm -rf "$TERND_WORK"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//');" \
     "$runtime; load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
