#pragma once
// What the server keeps of a password for SCRAM (RFC 5802 section 3): the salt, the
// iteration count, StoredKey = H(HMAC(SaltedPassword, "Client Key")) and
// ServerKey = HMAC(SaltedPassword, "Server Key"), where SaltedPassword = Hi(password, salt,
// iterations). StoredKey checks a client's proof and ServerKey signs the server's answer;
// neither lets anyone compute the password or a proof without it. The server never stores
// a password in clear: PLAIN, too, checks against the credential.
//
// The password is used as given: no SASLprep normalisation, as Couchbase clients send it.

#include <cstdint>
#include <string>
#include <string_view>

#include "auth/scram_algorithm.h"

namespace tern::auth {

// An iteration count for credentials when nothing else is configured: the cost of one
// PBKDF2 run, which a PLAIN login pays each time and a password-guesser pays per guess.
inline constexpr uint32_t kDefaultIterations = 15000;

struct ScramCredential {
  ScramAlgorithm algorithm = ScramAlgorithm::Sha512;
  std::string salt;  // raw bytes
  uint32_t iterations = 0;
  std::string stored_key;  // raw bytes, digest_size(algorithm) long
  std::string server_key;  // raw bytes, digest_size(algorithm) long
};

// The credential for `password`. Throws std::invalid_argument if iterations is 0.
ScramCredential derive_credential(ScramAlgorithm algorithm, std::string_view password,
                                  std::string_view salt, uint32_t iterations);

// A fresh random salt, one digest long.
std::string random_salt(ScramAlgorithm algorithm);

// A credential for a user who does not exist, to run the same exchange with the same cost
// as for one who does, so that neither the answer nor its timing says which users exist.
// The same name always gets the same salt within a process (a prober asking twice sees no
// change) but no password matches it. Its keys come from a random secret of the process.
ScramCredential decoy_credential(ScramAlgorithm algorithm, std::string_view user,
                                 uint32_t iterations);

}  // namespace tern::auth
