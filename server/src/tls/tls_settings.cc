#include "tls/tls_settings.h"

namespace tern::tls {

std::string_view client_auth_name(ClientAuth mode) {
  switch (mode) {
    case ClientAuth::kDisabled:
      return "disabled";
    case ClientAuth::kEnabled:
      return "enabled";
    case ClientAuth::kMandatory:
      return "mandatory";
  }
  return "disabled";
}

std::optional<ClientAuth> parse_client_auth(std::string_view name) {
  for (ClientAuth mode : {ClientAuth::kDisabled, ClientAuth::kEnabled, ClientAuth::kMandatory}) {
    if (name == client_auth_name(mode)) return mode;
  }
  return std::nullopt;
}

}  // namespace tern::tls
