# What the benchmarks that measure this tree against an older commit in the same run share;
# source it from the repository root with TERND_WORK set (a folder the caller removes).
#   base_build REV TARGET [EDIT]
#                  builds TARGET (Release) at commit REV once and prints its path,
#                  build/bench-base/<commit>[-<edit's hash>]/<target>; a rerun finds it and
#                  starts at once. EDIT, a shell command run in the commit's checkout before
#                  the build, lets a benchmark give the old code what it needs to measure
#                  the same cases (bench-lookup's key counts). Uses a git worktree under
#                  $TERND_WORK, which it removes again.
#   base_ternd REV the ternd of commit REV: base_build REV ternd.
base_build() {
  local rev=$1 target=$2 edit=${3:-} commit dir binary
  commit=$(git rev-parse --verify "$rev^{commit}")
  dir=build/bench-base/$commit
  [ -z "$edit" ] || dir="$dir-$(printf '%s' "$edit" | sha1sum | cut -c1-8)"
  binary=$dir/$target
  if [ ! -x "$binary" ]; then
    echo "building $target at $rev" >&2
    git worktree add -q --detach "$TERND_WORK/base" "$commit"
    [ -z "$edit" ] || (cd "$TERND_WORK/base" && eval "$edit")
    cmake -S "$TERND_WORK/base/server" -B "$TERND_WORK/base/build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$TERND_WORK/base/build" --target "$target" -j "$(nproc)" -- --quiet >/dev/null
    mkdir -p "$dir"
    cp "$TERND_WORK/base/build/$target" "$binary"
    git worktree remove --force "$TERND_WORK/base"
  fi
  echo "$binary"
}

base_ternd() { base_build "$1" ternd; }
