#pragma once
// The users the server knows: for each, a SCRAM credential per algorithm (never a password)
// and what it may reach. The directory is filled at start-up and read-only afterwards, so
// any number of connections read it at once without locks; add() must not run then.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "auth/scram.h"

namespace tern::auth {

struct User {
  std::string name;
  std::vector<ScramCredential> credentials;  // at most one per algorithm
  std::vector<std::string> buckets;          // bucket names, or "*" for every bucket
  bool admin = false;                        // administrative commands; grants no bucket

  // The credential of that algorithm, or nullptr if the user has none.
  const ScramCredential* credential(ScramAlgorithm algorithm) const;

  // Whether `bucket` is among the user's buckets, or the user has "*". The empty name,
  // which no bucket has, is never allowed.
  bool may_use(std::string_view bucket) const;
};

class UserDirectory {
 public:
  // Adds a user. Throws std::invalid_argument if the name is empty or taken, or if two
  // credentials share an algorithm.
  void add(User user);

  // The user of that name (case matters), or nullptr.
  const User* find(std::string_view name) const;

  size_t size() const { return users_.size(); }

  // The iteration count to show for unknown users: the commonest among the credentials
  // of that algorithm (the largest on a tie), else kDefaultIterations.
  uint32_t decoy_iterations(ScramAlgorithm algorithm) const;

 private:
  struct Decoy {
    uint32_t iterations = kDefaultIterations;
    std::map<uint32_t, size_t> users_per_iterations;
  };

  std::map<std::string, User, std::less<>> users_;
  std::array<Decoy, 3> decoys_;  // by ScramAlgorithm
};

}  // namespace tern::auth
