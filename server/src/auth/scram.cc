#include "auth/scram.h"

#include "auth/crypto.h"

namespace tern::auth {

ScramCredential derive_credential(ScramAlgorithm algorithm, std::string_view password,
                                  std::string_view salt, uint32_t iterations) {
  std::string salted = salted_password(algorithm, password, salt, iterations);
  std::string client_key = hmac(algorithm, salted, "Client Key");
  ScramCredential credential{
      .algorithm = algorithm,
      .salt = std::string(salt),
      .iterations = iterations,
      .stored_key = hash(algorithm, client_key),
      .server_key = hmac(algorithm, salted, "Server Key"),
  };
  cleanse(client_key);
  cleanse(salted);
  return credential;
}

std::string random_salt(ScramAlgorithm algorithm) { return random_bytes(digest_size(algorithm)); }

ScramCredential decoy_credential(ScramAlgorithm algorithm, std::string_view user,
                                 uint32_t iterations) {
  // Initialised once, thread-safely; never leaves the process.
  static const std::string secret = random_bytes(64);
  // No label is a prefix of another, so the three inputs never coincide.
  std::string name(user);
  return ScramCredential{
      .algorithm = algorithm,
      .salt = hmac(algorithm, secret, "salt:" + name),
      .iterations = iterations,
      .stored_key = hmac(algorithm, secret, "stored key:" + name),
      .server_key = hmac(algorithm, secret, "server key:" + name),
  };
}

}  // namespace tern::auth
