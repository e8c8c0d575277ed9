#include "config/credential_toml.h"

#include <stdexcept>

#include <fmt/format.h>

#include "auth/base64.h"
#include "config/scram_mechanisms.h"

namespace tern::config {

std::string credential_toml_line(const CredentialSpec& credential) {
  const ScramMechanism* mechanism = find_scram_mechanism(credential.mechanism);
  if (mechanism == nullptr) {
    throw std::invalid_argument("no SCRAM mechanism is called '" + credential.mechanism + "'");
  }
  // Base64 needs no TOML escaping: its alphabet has no quote or backslash.
  return fmt::format(
      R"({} = {{ salt = "{}", iterations = {}, stored_key = "{}", server_key = "{}" }})",
      mechanism->toml_key, auth::base64_encode(credential.salt), credential.iterations,
      auth::base64_encode(credential.stored_key), auth::base64_encode(credential.server_key));
}

}  // namespace tern::config
