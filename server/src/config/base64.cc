#include "config/base64.h"

#include <algorithm>
#include <cstdint>

namespace tern::config {

namespace {

constexpr int kNotBase64 = -1;

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return kNotBase64;
}

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string encode_base64(std::string_view bytes) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t group_size = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = 0;
    for (size_t j = 0; j < 3; ++j) {
      const uint32_t byte = j < group_size ? static_cast<unsigned char>(bytes[i + j]) : 0;
      group = (group << 8) | byte;
    }
    // A group of n bytes gives n + 1 characters; '=' fills the group to four.
    for (size_t j = 0; j < 4; ++j) {
      text.push_back(j <= group_size ? kAlphabet[(group >> (18 - 6 * j)) & 0x3F] : '=');
    }
  }
  return text;
}

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  // Up to two '=' at the very end stand for the missing bytes of the last group.
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  const std::string_view digits = text.substr(0, text.size() - padding);

  std::string bytes;
  bytes.reserve(digits.size() * 3 / 4);
  uint32_t bits = 0;
  int bit_count = 0;
  for (char c : digits) {
    const int value = sextet(c);
    if (value == kNotBase64) return std::nullopt;
    bits = (bits << 6) | static_cast<uint32_t>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      bytes.push_back(static_cast<char>((bits >> bit_count) & 0xFF));
    }
  }
  // Leftover bits must be zero, or the text is not what any encoder writes.
  if ((bits & ((1u << bit_count) - 1)) != 0) return std::nullopt;
  return bytes;
}

}  // namespace tern::config
