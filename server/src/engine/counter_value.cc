#include "engine/counter_value.h"

#include <charconv>

namespace tern::engine {

std::optional<uint64_t> parse_counter(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
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
