#!/usr/bin/env bash
# Usage: test-certs.sh DIR
# Makes the certificates the TLS tests use, once (it does nothing when they are there). Every
# .pem has its .key beside it. Server certificates (SAN DNS:localhost, IP:127.0.0.1) are chains,
# leaf then CA; client certificates are the leaf alone.
#   ca.pem               the CA clients trust
#   server.pem           a server certificate from ca
#   server2.pem          another one from ca (another key and serial: a reload's new pair)
#   expired.pem          a server certificate from ca that expired in 2021
#   other-ca.pem         a second CA, trusted by nobody
#   other.pem            a server certificate from other-ca
#   client-ca.pem        the CA of client certificates (ternd's [tls] client_ca)
#   client-admin.pem     a client certificate from client-ca, CN=Administrator (+ .p12, no
#                        password, for clients that want PKCS#12)
#   client-nobody.pem    a client certificate from client-ca, CN=nobody (no such user)
#   client-other.pem     a client certificate from other-ca, CN=Administrator
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
# client-admin.p12 is made last: when it is there, everything is.
[ -s "$dir/client-admin.p12" ] && exit 0
source "$(dirname "$0")/lib/certs.sh"
certs_begin "$dir"
trap certs_end EXIT
certs_ca ca "Tern Test CA"
certs_ca other-ca "Tern Other CA"
certs_ca client-ca "Tern Client CA"
certs_leaf server ca server localhost
certs_leaf server2 ca server localhost
certs_leaf expired ca server localhost 20200101000000Z 20210101000000Z
certs_leaf other other-ca server localhost
certs_leaf client-nobody client-ca client nobody
certs_leaf client-other other-ca client Administrator
certs_leaf client-admin client-ca client Administrator
certs_openssl pkcs12 -export -passout pass: -in "$dir/client-admin.pem" \
  -inkey "$dir/client-admin.key" -out "$CERTS_SCRATCH/client-admin.p12"
mv "$CERTS_SCRATCH/client-admin.p12" "$dir/client-admin.p12"
