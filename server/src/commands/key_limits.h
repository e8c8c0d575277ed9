#pragma once
// How long document keys may be, and room for the key a document is stored under.

#include <array>
#include <cstddef>

namespace tern::commands {

// The longest key on the wire: 250 bytes of key, or with collections a prefix and a key
// that together fit 251.
inline constexpr size_t kMaxKeyLength = 250;
inline constexpr size_t kMaxPrefixedKeyLength = 251;
// The longest key in a collection other than the default one (its prefix takes more room).
inline constexpr size_t kMaxNonDefaultCollectionKeyLength = 246;

// Room for a stored key that differs from the one sent (request_checks.h): a marker byte,
// then the wire key.
using StoredKeyBuffer = std::array<char, 1 + kMaxPrefixedKeyLength>;

}  // namespace tern::commands
