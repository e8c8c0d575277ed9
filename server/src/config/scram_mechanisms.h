#pragma once
// The SCRAM mechanisms a [[user]] table can hold secrets for, and how the file names them.
// Internal to config/: shared by the reader (user_section) and the writer (credential_toml).

#include <cstddef>
#include <string_view>

namespace tern::config {

struct ScramMechanism {
  std::string_view toml_key;  // in the [[user]] table
  std::string_view name;      // as SASL (and CredentialSpec::mechanism) names it
  size_t digest_size;         // of its hash: the size of stored_key and server_key
};

// Strongest first: the order of UserSpec::credentials.
inline constexpr ScramMechanism kScramMechanisms[] = {
    {"scram_sha512", "SCRAM-SHA512", 64},
    {"scram_sha256", "SCRAM-SHA256", 32},
    {"scram_sha1", "SCRAM-SHA1", 20},
};

// The entry whose SASL name is `name`, or null.
inline const ScramMechanism* find_scram_mechanism(std::string_view name) {
  for (const ScramMechanism& mechanism : kScramMechanisms) {
    if (mechanism.name == name) return &mechanism;
  }
  return nullptr;
}

}  // namespace tern::config
