#pragma once
// Standard base64 (RFC 4648 section 4: the alphabet with '+' and '/', padded with '=', on one
// line), as Couchbase's JSON fields carry bytes: binary XATTR values, range-scan keys. The
// codec is OpenSSL's (EVP_EncodeBlock / EVP_DecodeBlock); what is well formed is decided here,
// since OpenSSL's decoder is lenient (it skips whitespace and decodes padding as zeros).

#include <string>
#include <string_view>

namespace tern {

// Appends the base64 text of `raw` to `out`.
void base64_append(std::string_view raw, std::string& out);

// Whether `text` is well-formed base64: a length that is a multiple of 4, letters of the
// alphabet only, and '=' only as the last one or two.
bool is_base64(std::string_view text);

// Sets `out` to the bytes `text` encodes. False (and `out` unspecified) when `text` is not
// well formed.
bool base64_decode(std::string_view text, std::string& out);

}  // namespace tern
