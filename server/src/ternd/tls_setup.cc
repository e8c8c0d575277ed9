#include "ternd/tls_setup.h"

#include <spdlog/spdlog.h>

#include "tls/tls_settings.h"

namespace tern::ternd {

std::unique_ptr<tls::TlsContext> make_tls_context(const Options& options) {
  const config::TlsSpec& spec = options.tls;
  if (!spec.certificate) return nullptr;
  tls::TlsSettings settings;
  settings.certificate = *spec.certificate;
  settings.private_key = spec.private_key.value_or("");
  settings.client_ca = spec.client_ca.value_or("");
  // The flag and the config reader accept only the names parse_client_auth knows.
  settings.client_auth = tls::parse_client_auth(spec.client_auth.value_or("disabled"))
                             .value_or(tls::ClientAuth::kDisabled);
  return std::make_unique<tls::TlsContext>(std::move(settings));
}

void reload_tls(tls::TlsContext& context) {
  if (std::optional<std::string> failure = context.reload()) {
    spdlog::error("TLS certificate reload failed, keeping the old one: {}", *failure);
  } else {
    spdlog::info("TLS certificate reloaded from {}", context.settings().certificate);
  }
}

}  // namespace tern::ternd
