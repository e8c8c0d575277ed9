#pragma once
// The base64 that SCRAM secrets are written in. Decoding is strict (RFC 4648 section 4, with
// padding, no whitespace or line breaks), so that a secret damaged in copy and paste is
// refused at start-up instead of silently failing every login. Kept here rather than
// borrowed from auth/ so that the configuration depends on nothing but common/.

#include <optional>
#include <string>
#include <string_view>

namespace tern::config {

std::string encode_base64(std::string_view bytes);

// The decoded bytes, or nullopt when `text` is not strict base64.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace tern::config
