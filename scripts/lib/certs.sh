# What scripts/dev-certs.sh and scripts/test-certs.sh share: certificates made with the openssl
# CLI (OpenSSL 3.0 or later), with P-256 keys (fast to make, accepted by OpenSSL, Node and
# .NET). Source it; it defines:
#   certs_begin DIR       makes DIR and a scratch directory for openssl's CA bookkeeping
#   certs_ca NAME CN      NAME.pem + NAME.key: a self-signed CA valid for ten years
#   certs_leaf NAME CA KIND CN [START END]
#                         NAME.pem + NAME.key: a certificate signed by CA (CA.pem, CA.key).
#                         KIND: server (SAN DNS:localhost, IP:127.0.0.1; NAME.pem is the chain,
#                         leaf then CA) or client (the leaf alone). START and END (openssl's
#                         YYYYMMDDHHMMSSZ) set the validity; else 825 days from now
#   certs_end             removes the scratch directory
# Every file is written under a temporary name and renamed, so a reader never sees half a file.

certs_begin() {
  CERTS_DIR=$1
  mkdir -p "$CERTS_DIR"
  CERTS_SCRATCH=$(mktemp -d "$CERTS_DIR/.certs.XXXXXX")
  : >"$CERTS_SCRATCH/index.txt"
  # One config for both `req` and `ca`, so that the system's openssl.cnf plays no part.
  cat >"$CERTS_SCRATCH/openssl.cnf" <<CNF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
default_ca = signer
[signer]
database = $CERTS_SCRATCH/index.txt
new_certs_dir = $CERTS_SCRATCH
rand_serial = yes
default_md = sha256
policy = any_name
unique_subject = no
copy_extensions = none
[any_name]
commonName = supplied
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, IP:127.0.0.1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[client_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
CNF
}

# Runs openssl quietly; on failure shows what it said, and fails.
certs_openssl() {
  openssl "$@" 2>"$CERTS_SCRATCH/openssl.err" >/dev/null || {
    echo "openssl $1 failed:" >&2
    cat "$CERTS_SCRATCH/openssl.err" >&2
    return 1
  }
}

certs_key() {  # certs_key OUT
  certs_openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"
}

certs_ca() {
  local name=$1 cn=$2 s=$CERTS_SCRATCH
  certs_key "$s/$name.key"
  certs_openssl req -config "$s/openssl.cnf" -new -x509 -key "$s/$name.key" -subj "/CN=$cn" \
    -days 3650 -extensions ca_ext -out "$s/$name.pem"
  mv "$s/$name.key" "$CERTS_DIR/$name.key"
  mv "$s/$name.pem" "$CERTS_DIR/$name.pem"
}

certs_leaf() {
  local name=$1 ca=$2 kind=$3 cn=$4 s=$CERTS_SCRATCH
  local validity=(-days 825)
  [ $# -lt 6 ] || validity=(-startdate "$5" -enddate "$6")
  certs_key "$s/$name.key"
  certs_openssl req -config "$s/openssl.cnf" -new -key "$s/$name.key" -subj "/CN=$cn" \
    -out "$s/$name.csr"
  certs_openssl ca -batch -config "$s/openssl.cnf" -cert "$CERTS_DIR/$ca.pem" \
    -keyfile "$CERTS_DIR/$ca.key" -in "$s/$name.csr" -extensions "${kind}_ext" -notext \
    "${validity[@]}" -out "$s/$name.leaf"
  if [ "$kind" = server ]; then
    cat "$s/$name.leaf" "$CERTS_DIR/$ca.pem" >"$s/$name.pem"
  else
    mv "$s/$name.leaf" "$s/$name.pem"
  fi
  mv "$s/$name.key" "$CERTS_DIR/$name.key"
  mv "$s/$name.pem" "$CERTS_DIR/$name.pem"
}

certs_end() {
  rm -rf "$CERTS_SCRATCH"
}
