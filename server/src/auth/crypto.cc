#include "auth/crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <limits>
#include <stdexcept>

namespace tern::auth {
namespace {

const EVP_MD* message_digest(ScramAlgorithm algorithm) {
  switch (algorithm) {
    case ScramAlgorithm::Sha1:
      return EVP_sha1();
    case ScramAlgorithm::Sha256:
      return EVP_sha256();
    case ScramAlgorithm::Sha512:
      return EVP_sha512();
  }
  throw std::invalid_argument("unknown SCRAM algorithm");
}

const unsigned char* bytes_of(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

int checked_int(size_t size) {
  if (size > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("input too large for OpenSSL");
  }
  return static_cast<int>(size);
}

}  // namespace

std::string hash(ScramAlgorithm algorithm, std::string_view data) {
  std::string digest(EVP_MAX_MD_SIZE, '\0');
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(digest.data()), &size,
                 message_digest(algorithm), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest failed");
  }
  digest.resize(size);
  return digest;
}

std::string hmac(ScramAlgorithm algorithm, std::string_view key, std::string_view data) {
  std::string mac(EVP_MAX_MD_SIZE, '\0');
  unsigned int size = 0;
  if (HMAC(message_digest(algorithm), key.data(), checked_int(key.size()), bytes_of(data),
           data.size(), reinterpret_cast<unsigned char*>(mac.data()), &size) == nullptr) {
    throw std::runtime_error("HMAC failed");
  }
  mac.resize(size);
  return mac;
}

std::string salted_password(ScramAlgorithm algorithm, std::string_view password,
                            std::string_view salt, uint32_t iterations) {
  if (iterations == 0) throw std::invalid_argument("SCRAM iteration count must be at least 1");
  if (iterations > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument("SCRAM iteration count too large");
  }
  std::string salted(digest_size(algorithm), '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), checked_int(password.size()), bytes_of(salt),
                        checked_int(salt.size()), static_cast<int>(iterations),
                        message_digest(algorithm), checked_int(salted.size()),
                        reinterpret_cast<unsigned char*>(salted.data())) != 1) {
    throw std::runtime_error("PKCS5_PBKDF2_HMAC failed");
  }
  return salted;
}

std::string random_bytes(size_t size) {
  std::string bytes(size, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), checked_int(size)) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return bytes;
}

bool equal_in_constant_time(std::string_view a, std::string_view b) {
  // The sizes are public (digest sizes); only the contents must not leak.
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

void cleanse(std::string& secret) {
  OPENSSL_cleanse(secret.data(), secret.size());
  secret.clear();
}

}  // namespace tern::auth
