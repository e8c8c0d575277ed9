#include "http/certificate_auth.h"

#include <spdlog/spdlog.h>

#include "tls/peer_identity.h"

namespace tern::http {

std::optional<Caller> authenticate_certificate(const auth::UserDirectory& users, const SSL& ssl) {
  const std::optional<tls::PeerCertificate> certificate = tls::peer_certificate(ssl);
  if (!certificate) return std::nullopt;
  const auth::User* account = users.find(certificate->user);
  if (account == nullptr) {
    spdlog::warn("management port: client certificate '{}' names no user ('{}'): refused",
                 certificate->subject, certificate->user);
    return std::nullopt;
  }
  return Caller{.user = account->name, .admin = account->admin, .account = account};
}

}  // namespace tern::http
