#pragma once
// Mutual TLS on the management port: the caller a verified client certificate names, as the
// KV TLS port logs such a client in (commands::Session::authenticate_by_certificate).

#include <openssl/ssl.h>

#include <optional>

#include "auth/user.h"
#include "http/caller.h"

namespace tern::http {

// The user the certificate `ssl`'s client presented names (its subject's CN), when it sent
// one the TLS context verified; nullopt without one, or when it names no user (logged,
// naming the certificate's subject).
std::optional<Caller> authenticate_certificate(const auth::UserDirectory& users, const SSL& ssl);

}  // namespace tern::http
