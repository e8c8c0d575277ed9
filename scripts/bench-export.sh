#!/usr/bin/env bash
# Usage: bench-export.sh
# Issue 26's round trip through the tern CLI: ITEMS (default 1000000) JSON documents of about
# 120 bytes (a lines file written here) go into bucket `source` with `tern import`, out again
# with `tern export --include-key id`, into a fresh bucket `target` with `tern import` of that
# file, and out once more. The two exports, sorted, must equal the input file, sorted. Prints
# each step's rate and the tern process's peak RSS (/usr/bin/time), and ternd's RSS. One ternd
# (two couchbase buckets of QUOTA_MB, default 1024, SERVER_THREADS worker threads).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/bench-export
name=bench-export
mkdir -p "$out"
items=${ITEMS:-1000000}
source scripts/lib/sdk-bench.sh
cleanup() { [ -z "${ternd_pid:-}" ] || kill "$ternd_pid" 2>/dev/null || true; wait 2>/dev/null || true; }
trap cleanup EXIT
dotnet build dotnet/src/Tern.Cli -c Release -nologo -v q >/dev/null
tern=(dotnet "$PWD/dotnet/src/Tern.Cli/bin/Release/net10.0/tern.dll")

quota=${QUOTA_MB:-1024}
cat >"$out/ternd.toml" <<TOML
[server]
listen = "127.0.0.1"
[[bucket]]
name = "source"
type = "couchbase"
memory_quota_mb = $quota
[[bucket]]
name = "target"
type = "couchbase"
memory_quota_mb = $quota
[[user]]
name = "Administrator"
buckets = ["*"]
password = "password"
TOML
rm -rf "$out/ternd-data"
"$ternd" --config "$out/ternd.toml" --port 0 --mgmt-port none --threads "$server_threads" \
  --data-dir "$out/ternd-data" 2>"$out/ternd.log" &
ternd_pid=$!
ternd_port=$(wait_for_port "$out/ternd.log" "$ternd_pid")
machine_line "$items documents"

python3 - "$items" >"$out/input.json" <<'PY'
import json, sys
for i in range(int(sys.argv[1])):
    print(json.dumps({"id": f"doc-{i:08d}", "n": i, "name": f"user {i}", "tags": ["a", "b"],
                      "pad": "x" * 40}, separators=(",", ":")))
PY

export TERN_PASSWORD=password
# One step: prints tern's summary line and its peak RSS.
step() {
  local what=$1; shift
  /usr/bin/time -f "%M" -o "$out/rss.txt" "${tern[@]}" "$@" --server "couchbase://127.0.0.1:$ternd_port" \
    -u Administrator --timeout 30 >"$out/step.txt" 2>"$out/step.err" || { cat "$out/step.err" >&2; return 1; }
  echo "$what: $(cat "$out/step.txt"); tern's peak RSS $(($(cat "$out/rss.txt") / 1024)) MiB"
}
step "import" import --bucket source --format lines --input "$out/input.json" --generate-key %id%
step "export" export --bucket source --format lines --output "$out/export1.json" --include-key id
step "import of the export" import --bucket target --format lines --input "$out/export1.json" --generate-key %id%
step "export of the import" export --bucket target --format list --output "$out/export2.json" --include-key id

sort "$out/input.json" >"$out/input.sorted"
sort "$out/export1.json" >"$out/export1.sorted"
python3 -c 'import json,sys; [print(json.dumps(d, separators=(",", ":"))) for d in json.load(open(sys.argv[1]))]' \
  "$out/export2.json" | sort >"$out/export2.sorted"
if cmp -s "$out/input.sorted" "$out/export1.sorted" && cmp -s "$out/input.sorted" "$out/export2.sorted"; then
  echo "round trip: both exports hold exactly the $items input documents"
else
  echo "round trip: the exports differ from the input" >&2
  exit 1
fi
echo "ternd's RSS at the end: $(($(awk '/VmRSS/ { print $2 }' "/proc/$ternd_pid/status") / 1024)) MiB;" \
     "load average $(cut -d' ' -f1-3 /proc/loadavg)"
