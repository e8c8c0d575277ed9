#pragma once
// SASL PLAIN (RFC 4616): the client sends "authzid NUL authcid NUL password" in one message
// and the server answers yes or no. The password is checked against the user's strongest
// SCRAM credential, by deriving that credential's StoredKey from the password with the
// stored salt and iterations, so no password is stored in clear for PLAIN either. Each check
// costs one PBKDF2 run, as much for an unknown user (on a decoy credential) as for a known
// one. The password travels in clear, which is why the caller decides when PLAIN is allowed.

#include <string>
#include <string_view>

#include "auth/user.h"

namespace tern::auth {

enum class PlainOutcome { Success, AuthFailed, Malformed };

struct PlainResult {
  PlainOutcome outcome = PlainOutcome::Malformed;
  std::string user;  // the authenticated user on Success, else empty
};

// The parts of a PLAIN message, viewing into it.
struct PlainMessage {
  std::string_view authzid;  // empty when absent
  std::string_view authcid;
  std::string_view password;
};

// Splits a PLAIN message; false unless it has exactly two NULs and a non-empty authcid and
// password.
bool parse_plain(std::string_view message, PlainMessage& parsed);

// Authenticates a PLAIN message: Malformed if it does not parse; AuthFailed for an unknown
// user, a wrong password, a user without credentials, or an authzid other than the authcid
// (acting as another user is not supported).
PlainResult check_plain(const UserDirectory& users, std::string_view message);

}  // namespace tern::auth
