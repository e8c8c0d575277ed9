#pragma once
// Extended attributes (XATTRs), stored as Couchbase stores them: a value whose datatype has
// the XATTR bit starts with its attributes, and the document body follows them.
//
//   u32 length of the pairs that follow (big-endian, not counting itself)
//   then per attribute: u32 length of what follows (big-endian), key, 0x00, value, 0x00
//   then the body
//
// Keys are short names; values are JSON. A key starting with '_' is a system attribute:
// it survives the document's removal in its tombstone. This file is the only one that knows
// the layout; the engine (tombstones) and the sub-document commands both use it.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tern::xattr {

struct Attribute {
  std::string_view key;
  std::string_view value;  // JSON text
  bool operator==(const Attribute&) const = default;
};

// A value split into its attributes' section (the length word included) and its body.
struct Split {
  std::string_view attributes;  // empty when the value has none
  std::string_view body;
};

// Splits a stored value by its datatype: without the XATTR bit the whole value is the body.
// Returns false when the XATTR bit is set but the layout is broken (a length running past
// the end); then `out` is unspecified.
bool split(std::string_view value, uint8_t datatype, Split& out);

// The attributes of a section produced by split() (or append_section()), in stored order.
// Returns false, leaving `out` unspecified, when the section is malformed: a pair length
// past the end, a pair without its two 0x00 terminators (or with more), an empty key, or a
// length word that does not match the section's size. Clears `out` first.
bool parse(std::string_view section, std::vector<Attribute>& out);

// Appends the section for `attributes` (length word included) to `out`. Appends nothing
// when there are no attributes: a value without attributes has no section at all.
void append_section(std::span<const Attribute> attributes, std::string& out);

// Whether `key` names a system attribute (kept in a tombstone).
inline bool is_system_key(std::string_view key) { return !key.empty() && key.front() == '_'; }

// The section of only the system attributes of `section` (empty when it has none, or when
// `section` is malformed): what a removed document's tombstone keeps.
std::string system_section(std::string_view section);

}  // namespace tern::xattr
