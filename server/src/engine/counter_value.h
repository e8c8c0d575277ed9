#pragma once
// The textual form of INCREMENT/DECREMENT counters: a value is a counter when it is one to
// twenty decimal digits that fit in a u64.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tern::engine {

std::optional<uint64_t> parse_counter(std::string_view text);

// Writes `value` in decimal to `buffer` (at least 20 bytes) and returns the written text.
std::string_view format_counter(uint64_t value, char* buffer);

// The counter after applying the delta: increment wraps at 2^64, decrement stops at 0.
uint64_t apply_delta(uint64_t value, bool increment, uint64_t delta);

}  // namespace tern::engine
