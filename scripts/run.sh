#!/usr/bin/env bash
# Usage: run.sh BUILD_DIR BUILD_TYPE [TERND FLAGS...]
# Builds ternd alone and runs it in the foreground with the development config
# (server/config/dev.toml), after saying how to connect. Flags after the first two are passed
# to ternd and win over the config file (e.g. --port 11211). The TLS ports use development
# certificates, made once into data/tls (scripts/dev-certs.sh; clients trust data/tls/ca.pem).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/release}
build_type=${2:-Release}
shift 2 || true
bash scripts/build-server.sh "$build_dir" "$build_type" "" ternd

config=server/config/dev.toml
tls_dir=data/tls
bash scripts/dev-certs.sh "$tls_dir"
port=11210
mgmt_port=8091
tls_port=11207
mgmt_tls_port=18091
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --port) port=${args[i + 1]:-$port} ;;
    --port=*) port=${args[i]#--port=} ;;
    --mgmt-port) mgmt_port=${args[i + 1]:-$mgmt_port} ;;
    --mgmt-port=*) mgmt_port=${args[i]#--mgmt-port=} ;;
    --tls-port) tls_port=${args[i + 1]:-$tls_port} ;;
    --tls-port=*) tls_port=${args[i]#--tls-port=} ;;
    --mgmt-tls-port) mgmt_tls_port=${args[i + 1]:-$mgmt_tls_port} ;;
    --mgmt-tls-port=*) mgmt_tls_port=${args[i]#--mgmt-tls-port=} ;;
  esac
done
cat <<MESSAGE
ternd, with the development config ($config):
  Couchbase SDKs:  couchbase://127.0.0.1:$port   user Administrator, password password
                   bucket default; scope app with collections users and orders
  Management:      http://127.0.0.1:$mgmt_port   (REST, /metrics; the console at /ui/)
  Over TLS:        couchbases://127.0.0.1:$tls_port   https://127.0.0.1:$mgmt_tls_port
                   trust $tls_dir/ca.pem: Node SDK security.trustStorePath=$tls_dir/ca.pem,
                   Tern.Client and tern --cacert $tls_dir/ca.pem
  Stop it with Ctrl-C.
MESSAGE
exec "$build_dir/server/ternd" --config "$config" --tls-certificate "$tls_dir/server.pem" \
  --tls-private-key "$tls_dir/server.key" "$@"
