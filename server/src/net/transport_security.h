#pragma once
// What a secure transport (net/tls_transport.h) learned about its peer in the handshake.

#include <optional>

#include "tls/peer_identity.h"

namespace tern::net {

struct TransportSecurity {
  // The client's verified certificate (mutual TLS), if it presented one.
  std::optional<tls::PeerCertificate> client_certificate;
};

}  // namespace tern::net
