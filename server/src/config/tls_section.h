#pragma once
// Reads the [tls] table into a TlsSpec. Internal to config/.
//
//   [tls]
//   certificate = "tls/server.pem"   # PEM chain, leaf first; relative to the current directory
//   private_key = "tls/server.key"   # PEM
//   client_ca = "tls/client-ca.pem"  # optional: CAs of client certificates
//   client_auth = "disabled"         # "enabled" or "mandatory" need client_ca
//
// Whether the files exist and match is checked when ternd loads them, not here.

#include <string_view>
#include <vector>

#include "config/file_config.h"
#include "config/table_reader.h"

namespace tern::config {

// Throws ConfigError for an empty path, a client_auth that is not one of kClientAuthModes,
// a certificate without a private key (or the reverse), or client_auth "enabled" or
// "mandatory" without a client_ca.
TlsSpec read_tls(const TableReader& tls);

// The keys the [tls] table accepts, for its TableReader.
inline const std::vector<std::string_view> kTlsKeys = {"certificate", "private_key", "client_ca",
                                                       "client_auth"};

}  // namespace tern::config
