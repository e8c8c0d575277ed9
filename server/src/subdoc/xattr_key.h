#pragma once
// The extended attribute a sub-document XATTR path addresses. Such a path starts with the
// attribute's key and goes on into its JSON value: "meta.rev" is member "rev" of the
// attribute "meta". The key is everything before the first '.' or '[' (backticks quote
// nothing here: Couchbase reads the key the same way).
//
// Couchbase's rules for a key (kv_engine, xattr/key_validator.cc), which we follow:
// - 1 to 15 bytes of valid UTF-8, no NUL;
// - its first character is a letter, a digit, a space or any non-ASCII character; or '_' (a system
//   attribute: kept in a tombstone) or '$' (a virtual attribute, computed by the server),
//   then followed by at least one more character.
// One narrowing of ours: no '"', '\\', '`' or control character anywhere in the key. The
// sub-document commands keep the attributes as one JSON object whose member names are the
// keys written as they are, and paths quote with backticks, so such a key could not be
// addressed reliably. Couchbase accepts them; no SDK needs them.

#include <cstddef>
#include <string_view>

namespace tern::subdoc {

// Couchbase's limit: a key is shorter than this.
inline constexpr size_t kMaxXattrKeyBytes = 16;

// The key part of an XATTR path (up to its first '.' or '['); the whole path when it has
// neither.
std::string_view xattr_key_of(std::string_view path);

// Whether `key` is one the rules above allow.
bool is_valid_xattr_key(std::string_view key);

// Whether an XATTR path's key is valid and the whole path is valid UTF-8 without NUL, as
// Couchbase checks it. XattrEinval answers a path that is not.
bool is_valid_xattr_path(std::string_view path);

// A virtual attribute's key: '$' first ($document, $XTOC, $vbucket).
inline bool is_virtual_xattr_key(std::string_view key) {
  return !key.empty() && key.front() == '$';
}

}  // namespace tern::subdoc
