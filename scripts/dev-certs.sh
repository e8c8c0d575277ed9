#!/usr/bin/env bash
# Usage: dev-certs.sh DIR
# Makes development certificates for ternd's TLS ports, once (it does nothing when they are
# there): DIR/ca.pem (+ ca.key), a CA of this machine only, and DIR/server.pem (the chain:
# leaf, then the CA) with DIR/server.key, for DNS:localhost and IP:127.0.0.1. Clients trust
# DIR/ca.pem. The keys never leave DIR: nothing secret goes into git.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
[ -s "$dir/server.pem" ] && [ -s "$dir/server.key" ] && [ -s "$dir/ca.pem" ] && exit 0
source "$(dirname "$0")/lib/certs.sh"
certs_begin "$dir"
trap certs_end EXIT
certs_ca ca "Tern development CA ($(hostname))"
certs_leaf server ca server localhost
chmod 600 "$dir/ca.key" "$dir/server.key"
