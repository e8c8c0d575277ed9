#include "auth/user.h"

#include <algorithm>
#include <stdexcept>

namespace tern::auth {

const ScramCredential* User::credential(ScramAlgorithm algorithm) const {
  for (const ScramCredential& credential : credentials) {
    if (credential.algorithm == algorithm) return &credential;
  }
  return nullptr;
}

bool User::may_use(std::string_view bucket) const {
  if (bucket.empty()) return false;
  return std::any_of(buckets.begin(), buckets.end(), [bucket](const std::string& granted) {
    return granted == "*" || granted == bucket;
  });
}

void UserDirectory::add(User user) {
  if (user.name.empty()) throw std::invalid_argument("a user needs a name");
  if (users_.contains(user.name)) {
    throw std::invalid_argument("user '" + user.name + "' is defined twice");
  }
  for (size_t i = 0; i < user.credentials.size(); ++i) {
    for (size_t j = i + 1; j < user.credentials.size(); ++j) {
      if (user.credentials[i].algorithm == user.credentials[j].algorithm) {
        throw std::invalid_argument("user '" + user.name + "' has two credentials for " +
                                    std::string(mechanism_name(user.credentials[i].algorithm)));
      }
    }
  }
  for (const ScramCredential& credential : user.credentials) {
    auto& decoy = decoys_[static_cast<size_t>(credential.algorithm)];
    size_t count = ++decoy.users_per_iterations[credential.iterations];
    // Commonest wins; on a tie, the larger count of iterations.
    size_t best = decoy.users_per_iterations[decoy.iterations];
    if (count > best || (count == best && credential.iterations > decoy.iterations)) {
      decoy.iterations = credential.iterations;
    }
  }
  std::string name = user.name;
  users_.emplace(std::move(name), std::move(user));
}

const User* UserDirectory::find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : &it->second;
}

uint32_t UserDirectory::decoy_iterations(ScramAlgorithm algorithm) const {
  return decoys_[static_cast<size_t>(algorithm)].iterations;
}

}  // namespace tern::auth
