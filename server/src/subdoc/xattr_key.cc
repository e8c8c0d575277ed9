#include "subdoc/xattr_key.h"

#include <cstdint>

namespace tern::subdoc {

namespace {

// The length of the UTF-8 sequence starting at text[pos], or 0 when it is not valid
// (Couchbase checks the lead byte and the continuation bytes' marks, nothing more).
size_t utf8_width(std::string_view text, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[pos + i]); };
  const auto continuation = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
  const size_t available = text.size() - pos;
  const uint8_t lead = byte(0);
  size_t width = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) width = 2;
  else if ((lead & 0xF0) == 0xE0) width = 3;
  else if ((lead & 0xF8) == 0xF0) width = 4;
  else return 0;
  if (available < width) return 0;
  for (size_t i = 1; i < width; ++i) {
    if (!continuation(i)) return 0;
  }
  return width;
}

bool is_ascii_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Characters a key may not hold here: what JSON would escape in a member name, and the
// path syntax's quote.
bool is_reserved(char c) {
  return static_cast<uint8_t>(c) < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '`';
}

}  // namespace

std::string_view xattr_key_of(std::string_view path) {
  return path.substr(0, path.find_first_of(".["));
}

bool is_valid_xattr_key(std::string_view key) {
  if (key.empty() || key.size() >= kMaxXattrKeyBytes) return false;
  const char first = key.front();
  const bool prefixed = first == '_' || first == '$';
  // An ASCII first character must be a letter or digit, unless it is the system or virtual
  // prefix (C-locale ispunct/iscntrl, as Couchbase tests it, leaves exactly those out).
  if (static_cast<uint8_t>(first) < 0x80 && !is_ascii_alnum(first) && first != ' ' && !prefixed) {
    return false;
  }
  if (prefixed && key.size() == 1) return false;
  for (size_t pos = 0; pos < key.size();) {
    const size_t width = utf8_width(key, pos);
    if (width == 0) return false;
    if (width == 1 && is_reserved(key[pos])) return false;
    pos += width;
  }
  return true;
}

bool is_valid_xattr_path(std::string_view path) {
  if (!is_valid_xattr_key(xattr_key_of(path))) return false;
  // The rest of the path must be valid UTF-8 without NUL too (the JSON path rules do the rest).
  for (size_t pos = 0; pos < path.size();) {
    const size_t width = utf8_width(path, pos);
    if (width == 0 || path[pos] == '\0') return false;
    pos += width;
  }
  return true;
}

}  // namespace tern::subdoc
