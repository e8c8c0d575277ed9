#include "config/tls_section.h"

#include <algorithm>

#include <fmt/format.h>

namespace tern::config {

namespace {

std::optional<std::string> path(const TableReader& table, std::string_view key) {
  std::optional<std::string> value = table.string(key);
  if (value && value->empty()) table.fail(key, "must not be empty");
  return value;
}

}  // namespace

TlsSpec read_tls(const TableReader& table) {
  TlsSpec tls;
  tls.certificate = path(table, "certificate");
  tls.private_key = path(table, "private_key");
  tls.client_ca = path(table, "client_ca");
  tls.client_auth = table.string("client_auth");
  if (tls.client_auth && std::find(kClientAuthModes.begin(), kClientAuthModes.end(),
                                   *tls.client_auth) == kClientAuthModes.end()) {
    table.fail("client_auth",
               fmt::format("must be \"disabled\", \"enabled\" or \"mandatory\" (got '{}')",
                           *tls.client_auth));
  }
  if (tls.certificate && !tls.private_key) {
    table.fail("certificate", "needs private_key, the certificate's key");
  }
  if (tls.private_key && !tls.certificate) {
    table.fail("private_key", "needs certificate, the key's certificate chain");
  }
  if (tls.client_auth && *tls.client_auth != "disabled" && !tls.client_ca) {
    table.fail("client_auth",
               fmt::format("\"{}\" needs client_ca, the CAs client certificates chain to",
                           *tls.client_auth));
  }
  return tls;
}

}  // namespace tern::config
