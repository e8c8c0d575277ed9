#pragma once
// Who the client of a TLS connection proved to be with its certificate (mutual TLS).

#include <openssl/ssl.h>

#include <optional>
#include <string>

namespace tern::tls {

struct PeerCertificate {
  std::string subject;  // the subject's distinguished name on one line, for logs
  std::string user;     // the subject's common name (CN), the user it logs in as; empty if none
};

// The certificate the client presented on `ssl` (after its handshake), if it sent one and it
// was verified against the context's client CA; nullopt otherwise. With client_auth disabled
// the server never asks for one, so this is nullopt.
std::optional<PeerCertificate> peer_certificate(const SSL& ssl);

}  // namespace tern::tls
