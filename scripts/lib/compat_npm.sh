# Sourced: installs compat/'s npm packages (the official Couchbase Node.js SDK, puppeteer-core)
# as compat/package-lock.json pins them. npm ci runs only when compat/node_modules is missing or
# was installed from another lockfile. Used by the compat suite and by the .NET suite, whose
# transaction interoperability tests run the Node.js SDK (compat/lib/*.mjs).
compat_npm_install() {
  command -v node > /dev/null && command -v npm > /dev/null ||
    { echo "compat: node 20 or later, and npm, are needed" >&2; return 1; }
  local node_major
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$node_major" -ge 20 ] || { echo "compat: node $(node --version) is too old: 20 or later" >&2; return 1; }
  local stamp=compat/node_modules/.tern-lock-stamp
  if [ ! -f "$stamp" ] || ! cmp -s compat/package-lock.json "$stamp"; then
    echo "compat: npm ci in compat/"
    (cd compat && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
    cp compat/package-lock.json "$stamp"
  fi
}
