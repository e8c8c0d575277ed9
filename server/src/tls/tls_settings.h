#pragma once
// What the server's side of TLS is made of: which files hold its certificate chain and key,
// and whether clients must prove who they are with a certificate. No OpenSSL here, so that
// the config can describe TLS without depending on it.

#include <optional>
#include <string>
#include <string_view>

namespace tern::tls {

// Couchbase's names for what a client certificate is worth.
enum class ClientAuth {
  kDisabled,   // never asked for; a client's certificate is ignored
  kEnabled,    // asked for; one that does not chain to client_ca fails the handshake
  kMandatory,  // required: a handshake without one fails
};

// "disabled", "enabled" or "mandatory", as in the config and Couchbase's REST API.
std::string_view client_auth_name(ClientAuth mode);
// The mode a name means, or nullopt for any other name.
std::optional<ClientAuth> parse_client_auth(std::string_view name);

struct TlsSettings {
  std::string certificate = {};  // PEM file: the server's certificate, then its chain (leaf first)
  std::string private_key = {};  // PEM file: the key of the leaf certificate, unencrypted
  std::string client_ca = {};    // PEM file: the CAs client certificates chain to; empty = none
  ClientAuth client_auth = ClientAuth::kDisabled;  // enabled and mandatory need client_ca
};

}  // namespace tern::tls
