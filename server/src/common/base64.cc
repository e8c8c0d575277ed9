#include "common/base64.h"

#include <openssl/evp.h>

namespace tern {
namespace {

bool is_base64_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

// The number of '=' closing `text` (0, 1 or 2), or -1 when `text` is not well formed.
int padding_of(std::string_view text) {
  if (text.size() % 4 != 0) return -1;
  int padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() >= 2 && text[text.size() - 2] == '=') {
    if (padding == 0) return -1;  // "x=y" is no padding
    ++padding;
  }
  for (size_t i = 0; i < text.size() - padding; ++i) {
    if (!is_base64_letter(text[i])) return -1;
  }
  return padding;
}

const unsigned char* bytes_of(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

}  // namespace

void base64_append(std::string_view raw, std::string& out) {
  const size_t encoded = 4 * ((raw.size() + 2) / 3);
  const size_t start = out.size();
  // EVP_EncodeBlock writes a terminating NUL after the text.
  out.resize(start + encoded + 1);
  EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data() + start), bytes_of(raw),
                  static_cast<int>(raw.size()));
  out.resize(start + encoded);
}

bool is_base64(std::string_view text) { return padding_of(text) >= 0; }

bool base64_decode(std::string_view text, std::string& out) {
  const int padding = padding_of(text);
  if (padding < 0) return false;
  out.resize(text.size() / 4 * 3);
  if (text.empty()) return true;
  const int decoded = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), bytes_of(text),
                                      static_cast<int>(text.size()));
  if (decoded < padding) return false;
  out.resize(static_cast<size_t>(decoded - padding));
  return true;
}

}  // namespace tern
