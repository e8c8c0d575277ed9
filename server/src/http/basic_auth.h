#pragma once
// HTTP Basic authentication (RFC 7617) against the node's users. The password is checked as
// SASL PLAIN checks it (auth/plain.h): by deriving the user's StoredKey with the stored salt,
// so no password is kept in clear, and an unknown user costs as much as a wrong password.

#include <optional>
#include <string_view>

#include "auth/user.h"
#include "http/caller.h"

namespace tern::http {

// The caller an `Authorization` header value names, or nullopt when the header is missing,
// malformed, or its user or password is wrong. With `open_access` (no config file: the KV
// port lets every client in too) every request is an admin's, credentials or not.
std::optional<Caller> authenticate_basic(const auth::UserDirectory& users, bool open_access,
                                         std::string_view authorization);

}  // namespace tern::http
