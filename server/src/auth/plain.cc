#include "auth/plain.h"

#include "auth/crypto.h"

namespace tern::auth {
namespace {

const ScramCredential* strongest_credential(const User& user) {
  for (ScramAlgorithm algorithm : kScramAlgorithmsStrongestFirst) {
    if (const ScramCredential* credential = user.credential(algorithm)) return credential;
  }
  return nullptr;
}

}  // namespace

bool parse_plain(std::string_view message, PlainMessage& parsed) {
  size_t first_nul = message.find('\0');
  if (first_nul == std::string_view::npos) return false;
  size_t second_nul = message.find('\0', first_nul + 1);
  if (second_nul == std::string_view::npos) return false;
  if (message.find('\0', second_nul + 1) != std::string_view::npos) return false;
  parsed.authzid = message.substr(0, first_nul);
  parsed.authcid = message.substr(first_nul + 1, second_nul - first_nul - 1);
  parsed.password = message.substr(second_nul + 1);
  return !parsed.authcid.empty() && !parsed.password.empty();
}

PlainResult check_plain(const UserDirectory& users, std::string_view message) {
  PlainMessage parsed;
  if (!parse_plain(message, parsed))
    return PlainResult{.outcome = PlainOutcome::Malformed, .user = {}};

  const User* user = users.find(parsed.authcid);
  const ScramCredential* credential = user ? strongest_credential(*user) : nullptr;
  ScramCredential decoy;
  if (credential == nullptr) {
    decoy = decoy_credential(ScramAlgorithm::Sha512, parsed.authcid,
                             users.decoy_iterations(ScramAlgorithm::Sha512));
    credential = &decoy;
  }
  ScramCredential candidate = derive_credential(credential->algorithm, parsed.password,
                                                credential->salt, credential->iterations);
  bool password_matches = equal_in_constant_time(candidate.stored_key, credential->stored_key);
  cleanse(candidate.stored_key);
  cleanse(candidate.server_key);

  bool acts_as_itself = parsed.authzid.empty() || parsed.authzid == parsed.authcid;
  if (credential == &decoy || !password_matches || !acts_as_itself) {
    return PlainResult{.outcome = PlainOutcome::AuthFailed, .user = {}};
  }
  return PlainResult{.outcome = PlainOutcome::Success, .user = user->name};
}

}  // namespace tern::auth
