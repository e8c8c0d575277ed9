#include "auth/base64.h"

#include <openssl/evp.h>

namespace tern::auth {
namespace {

bool in_alphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string text(4 * ((bytes.size() + 2) / 3), '\0');
  // EVP_EncodeBlock also writes a terminating NUL, hence the extra byte.
  text.resize(text.size() + 1);
  int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  text.resize(static_cast<size_t>(written));
  return text;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  if (text.empty()) return std::string();
  size_t padding = 0;
  if (text.back() == '=') ++padding;
  if (text[text.size() - 2] == '=') ++padding;
  // EVP_DecodeBlock would skip whitespace and take '=' anywhere, so check the text first;
  // this also refuses a lone '=' before the last character ("AB=C").
  for (size_t i = 0; i < text.size() - padding; ++i) {
    if (!in_alphabet(text[i])) return std::nullopt;
  }

  std::string bytes(3 * (text.size() / 4), '\0');
  int decoded = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (decoded < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes; they are not data.
  bytes.resize(static_cast<size_t>(decoded) - padding);
  return bytes;
}

}  // namespace tern::auth
