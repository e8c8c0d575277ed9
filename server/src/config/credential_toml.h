#pragma once
// Writes SCRAM secrets in the form a [[user]] table reads them, one line per mechanism:
//   scram_sha512 = { salt = "...", iterations = 15000, stored_key = "...", server_key = "..." }
// `ternd --hash-password` prints these; keeping the writer beside the reader (user_section)
// means the two cannot drift apart.

#include <string>

#include "config/file_config.h"

namespace tern::config {

// The line for `credential`, without a newline. Throws std::invalid_argument if its
// mechanism is not one of CredentialSpec's three.
std::string credential_toml_line(const CredentialSpec& credential);

}  // namespace tern::config
