# What the benchmarks that load Release ternds with kv_load share (bench-full-eviction.sh,
# bench-memory.sh); source it from the repository root after setting `base_rev` (empty, or a
# commit to measure beside this tree). It builds ternd and kv_load in build/bench and sets:
#   kv_load        the load generator's path
#   ternd_of       the ternd binary of each name: `this`, and `base` when base_rev is set
#                  (built once: scripts/lib/base_build.sh)
#   names          those names, in the order a run alternates them
#   TERND_WORK     a folder removed at exit, with ternd.sh's functions sourced
# Its EXIT trap calls the caller's bench_cleanup first, if it defines one, then stops ternd
# and removes the base's worktree and TERND_WORK. As root, the benchmark then runs ahead of
# builds sharing the machine (only root may raise priority).
bash scripts/build-server.sh build/bench Release "" ternd kv_load >/dev/null
[ "$(id -u)" -ne 0 ] || renice -n -10 $$ >/dev/null
kv_load=build/bench/server/kv_load
TERND_WORK=$(mktemp -d)
source scripts/lib/ternd.sh
source scripts/lib/base_build.sh
kv_load_bench_exit() {
  ! declare -F bench_cleanup >/dev/null || bench_cleanup
  ternd_kill
  git worktree remove --force "$TERND_WORK/base" >/dev/null 2>&1 || true
  rm -rf "$TERND_WORK"
}
trap kv_load_bench_exit EXIT

declare -A ternd_of=([this]=build/bench/server/ternd)
names=(this)
if [ -n "$base_rev" ]; then
  ternd_of[base]=$(base_ternd "$base_rev")
  names+=(base)
fi
