#include "subdoc/counter.h"

#include <charconv>

namespace tern::subdoc {

using protocol::Status;

Status parse_delta(std::string_view text, int64_t& delta) {
  const std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
  if (digits.empty() || digits.front() == '0') return Status::SubdocDeltaEinval;
  // from_chars takes no '+' and no spaces; it reports out-of-range as an error.
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), delta);
  if (error != std::errc() || end != text.data() + text.size()) return Status::SubdocDeltaEinval;
  return Status::Success;
}

Status parse_counter(std::string_view number, int64_t& value) {
  if (number.find_first_of(".eE") != std::string_view::npos) return Status::SubdocPathMismatch;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error == std::errc::result_out_of_range) return Status::SubdocNumErange;
  if (error != std::errc() || end != number.data() + number.size()) {
    return Status::SubdocPathMismatch;
  }
  return Status::Success;
}

Status add_delta(int64_t value, int64_t delta, int64_t& result) {
  if (__builtin_add_overflow(value, delta, &result)) return Status::SubdocValueCantinsert;
  return Status::Success;
}

}  // namespace tern::subdoc
