#include "config/names.h"

#include <cstddef>

namespace tern::config {

namespace {

bool is_alphanumeric(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

// Not <cctype>: its answers depend on the locale and on the sign of char.
bool all_of(std::string_view name, bool (*allowed)(char)) {
  for (char c : name) {
    if (!allowed(c)) return false;
  }
  return true;
}

size_t utf8_length(std::string_view text) {
  size_t count = 0;
  for (char c : text) {
    // Continuation bytes (10xxxxxx) belong to the code point before them.
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

}  // namespace

std::optional<std::string> bucket_name_problem(std::string_view name) {
  if (name.empty() || name.size() > 100) return "must be 1-100 characters long";
  if (!all_of(name, [](char c) {
        return is_alphanumeric(c) || c == '.' || c == '_' || c == '%' || c == '-';
      })) {
    return "may contain only A-Z, a-z, 0-9, '.', '_', '%' and '-'";
  }
  if (name.front() == '.') return "must not start with '.'";
  return std::nullopt;
}

std::optional<std::string> user_name_problem(std::string_view name) {
  const size_t length = utf8_length(name);
  if (length == 0 || length > 128) return "must be 1-128 characters long";
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte <= 0x20 || byte == 0x7F) return "must not contain spaces or control characters";
    if (std::string_view("()<>@,;:\\\"/[]?={}").find(c) != std::string_view::npos) {
      return "must not contain any of ( ) < > @ , ; : \\ \" / [ ] ? = { }";
    }
  }
  return std::nullopt;
}

}  // namespace tern::config
