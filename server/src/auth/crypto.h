#pragma once
// The OpenSSL primitives SCRAM and PLAIN are built from, under RFC 5802's names (H, HMAC,
// Hi), taking and returning raw bytes in std::string. Each throws std::runtime_error if
// OpenSSL fails, which it does only when out of memory or misconfigured.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/scram_algorithm.h"

namespace tern::auth {

// H(data): the digest of the data.
std::string hash(ScramAlgorithm algorithm, std::string_view data);

// HMAC(key, data).
std::string hmac(ScramAlgorithm algorithm, std::string_view key, std::string_view data);

// Hi(password, salt, iterations): PBKDF2 with HMAC, one digest long. The costly step, on
// purpose; iterations must be at least 1 (std::invalid_argument otherwise).
std::string salted_password(ScramAlgorithm algorithm, std::string_view password,
                            std::string_view salt, uint32_t iterations);

// `size` bytes from OpenSSL's CSPRNG.
std::string random_bytes(size_t size);

// Whether a and b hold the same bytes, in time that depends only on their sizes: for
// comparing secrets, where an early exit would tell an attacker how much was right.
bool equal_in_constant_time(std::string_view a, std::string_view b);

// Overwrites the bytes so a secret does not outlive its use in freed memory.
void cleanse(std::string& secret);

}  // namespace tern::auth
