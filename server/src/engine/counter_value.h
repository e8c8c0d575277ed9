#pragma once
// The textual form of INCREMENT/DECREMENT counters. A stored value counts as a number
// exactly when memcached 1.6 takes it for one (it reads values with strtoull in base 10):
// optional leading whitespace, an optional '+' or '-', then decimal digits that fit in a
// u64, ending the value or followed by whitespace or NUL (anything may come after that).
// A '-' negates modulo 2^64, and the value is refused if that is negative as a signed
// 64-bit number, so "-0" is 0 and "-1" is not a counter. Whitespace is C's: space, \t, \n,
// \v, \f and \r.

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
