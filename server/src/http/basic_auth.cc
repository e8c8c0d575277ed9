#include "http/basic_auth.h"

#include <string>

#include "auth/base64.h"
#include "auth/plain.h"

namespace tern::http {

std::optional<Caller> authenticate_basic(const auth::UserDirectory& users, bool open_access,
                                         std::string_view authorization) {
  if (open_access) return Caller{.user = "", .admin = true, .account = nullptr};
  constexpr std::string_view kScheme = "Basic ";
  if (authorization.size() <= kScheme.size() ||
      !authorization.substr(0, kScheme.size()).starts_with("Basic")) {
    return std::nullopt;
  }
  const std::optional<std::string> decoded =
      auth::base64_decode(authorization.substr(kScheme.size()));
  if (!decoded) return std::nullopt;
  const size_t colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  // "user:password" becomes the PLAIN message "\0user\0password": one password check.
  std::string plain;
  plain.reserve(decoded->size() + 2);
  plain.push_back('\0');
  plain.append(*decoded, 0, colon);
  plain.push_back('\0');
  plain.append(*decoded, colon + 1);
  const auth::PlainResult result = auth::check_plain(users, plain);
  if (result.outcome != auth::PlainOutcome::Success) return std::nullopt;
  const auth::User* account = users.find(result.user);
  if (account == nullptr) return std::nullopt;
  return Caller{.user = result.user, .admin = account->admin, .account = account};
}

}  // namespace tern::http
