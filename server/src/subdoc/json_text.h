#pragma once
// Byte-level helpers for moving between tokens whose positions simdjson has already found:
// only JSON's four whitespace bytes are ever skipped, never a token.

#include <cstddef>
#include <string_view>

namespace tern::subdoc {

// RFC 8259's insignificant whitespace: space, tab, line feed, carriage return.
inline bool is_json_whitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The first byte at or after `p` that is not whitespace; `end` if there is none.
inline const char* skip_whitespace(const char* p, const char* end) {
  while (p < end && is_json_whitespace(*p)) ++p;
  return p;
}

// The last byte before `p` that is not whitespace; begin - 1 if there is none.
inline const char* last_before(const char* begin, const char* p) {
  --p;
  while (p >= begin && is_json_whitespace(*p)) --p;
  return p;
}

inline std::string_view trim_json_whitespace(std::string_view text) {
  size_t first = 0;
  while (first < text.size() && is_json_whitespace(text[first])) ++first;
  size_t last = text.size();
  while (last > first && is_json_whitespace(text[last - 1])) --last;
  return text.substr(first, last - first);
}

inline bool is_only_json_whitespace(std::string_view text) {
  return trim_json_whitespace(text).empty();
}

}  // namespace tern::subdoc
