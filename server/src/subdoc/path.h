#pragma once
// A sub-document path, as lookupIn and mutateIn send it: dictionary keys joined by dots, array
// positions in brackets, names that hold dots or brackets quoted in backticks. "a.b[2].c",
// "list[-1]" (the last element), "`a.b`.c" (the key "a.b"), "`x``y`" (the key "x`y"). The empty
// path is the document itself. Parsing is the only place that knows this syntax: the JSON
// locator and the splicer work on the components.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/status.h"

namespace tern::subdoc {

// Couchbase's limits: a longer path answers PathE2big, and so does a deeper one.
inline constexpr size_t kMaxPathBytes = 1024;
inline constexpr size_t kMaxPathComponents = 32;

// The last element of an array, written [-1]; no other negative position exists.
inline constexpr int64_t kLastElement = -1;

struct PathComponent {
  enum class Kind : uint8_t { Key, Index };
  Kind kind = Kind::Key;
  std::string key;    // Kind::Key: the dictionary key, unquoted
  int64_t index = 0;  // Kind::Index: 0-based, or kLastElement

  static PathComponent of_key(std::string name) { return {Kind::Key, std::move(name), 0}; }
  static PathComponent of_index(int64_t position) { return {Kind::Index, {}, position}; }
  bool operator==(const PathComponent&) const = default;
};

using Path = std::vector<PathComponent>;

// Parses text into out (cleared first). Returns Success, SubdocPathE2big (over kMaxPathBytes,
// or more than kMaxPathComponents components) or SubdocPathEinval (anything malformed: bytes
// that are not UTF-8, an empty key, an unclosed bracket or backtick, a position that is not a
// number or is negative other than -1, text after a closing bracket that is neither '.' nor
// '['). On failure out is left unspecified.
protocol::Status parse_path(std::string_view text, Path& out);

}  // namespace tern::subdoc
