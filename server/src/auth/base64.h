#pragma once
// Base64 (RFC 4648, standard alphabet, '=' padding) as SCRAM carries salts, proofs and
// signatures. Decoding is strict: a peer's message is either well-formed or refused, so no
// whitespace, no missing padding and no characters outside the alphabet are accepted.

#include <optional>
#include <string>
#include <string_view>

namespace tern::auth {

std::string base64_encode(std::string_view bytes);

// The decoded bytes, or nullopt unless `text` is canonical-length base64 (a multiple of 4
// characters, at most two '=' and only at the end). The empty text decodes to no bytes.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace tern::auth
