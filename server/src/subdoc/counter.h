#pragma once
// The arithmetic of the sub-document counter: a signed 64-bit delta added to a JSON integer,
// refused rather than wrapped when the result would not fit.

#include <cstdint>
#include <string_view>

#include "protocol/status.h"

namespace tern::subdoc {

// The delta as sent: decimal digits, optionally after '-', no leading zero, no '+', no
// spaces. Success, or SubdocDeltaEinval (empty, zero, not such an integer, beyond int64).
protocol::Status parse_delta(std::string_view text, int64_t& delta);

// The counter's current value, given the bytes of a JSON number. Success, SubdocPathMismatch
// (a fraction or an exponent: not an integer) or SubdocNumErange (beyond int64).
protocol::Status parse_counter(std::string_view number, int64_t& value);

// value + delta; SubdocValueCantinsert when it overflows int64 (kv_engine's answer).
protocol::Status add_delta(int64_t value, int64_t delta, int64_t& result);

}  // namespace tern::subdoc
