#include "engine/counter_value.h"

#include <charconv>

namespace tern::engine {

namespace {

bool is_c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

}  // namespace

std::optional<uint64_t> parse_counter(std::string_view text) {
  size_t at = 0;
  while (at < text.size() && is_c_space(text[at])) ++at;
  const bool negative = at < text.size() && text[at] == '-';
  if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
  uint64_t magnitude = 0;
  const auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), magnitude);
  if (error != std::errc()) return std::nullopt;  // no digits, or more than a u64 holds
  if (end != text.data() + text.size() && *end != '\0' && !is_c_space(*end)) return std::nullopt;
  const uint64_t value = negative ? uint64_t{0} - magnitude : magnitude;
  if (negative && static_cast<int64_t>(value) < 0) return std::nullopt;
  return value;
}

std::string_view format_counter(uint64_t value, char* buffer) {
  const auto result = std::to_chars(buffer, buffer + 20, value);
  return {buffer, static_cast<size_t>(result.ptr - buffer)};
}

uint64_t apply_delta(uint64_t value, bool increment, uint64_t delta) {
  if (increment) return value + delta;  // unsigned arithmetic wraps as the protocol wants
  return delta > value ? 0 : value - delta;
}

}  // namespace tern::engine
