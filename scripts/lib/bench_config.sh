# The config the collections benchmarks run ternd with. Source it; it defines:
#   bench_config OUT   writes server/config/dev.toml to OUT, with bucket `default` open to
#                      clients that do not log in (the plain mode needs it), and of type
#                      $BUCKET_TYPE [ephemeral]: the benchmarks compare what the protocol
#                      costs per request, which a persistent bucket's flusher would blur.
bench_config() {
  local type=${BUCKET_TYPE:-ephemeral}
  awk -v type="$type" '
    /^type *= *"/ { print "type = \"" type "\""; next }
    /^anonymous_bucket *=/ { next }
    { print }
    /^\[server\]/ { print "anonymous_bucket = \"default\"" }' server/config/dev.toml >"$1"
}
