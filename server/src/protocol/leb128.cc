// Unsigned LEB128 for u32 collection ids: seven bits per byte, low group first, the high bit
// of each byte saying another follows.
#include "protocol/codec.h"

namespace tern::protocol {

namespace {
constexpr size_t kMaxLeb128Bytes = 5;
constexpr uint8_t kContinue = 0x80;
constexpr uint8_t kPayload = 0x7f;
}  // namespace

size_t leb128_encode(uint32_t value, std::span<uint8_t> out) {
  size_t n = 0;
  do {
    uint8_t byte = value & kPayload;
    value >>= 7;
    if (value != 0) byte |= kContinue;
    out[n++] = byte;
  } while (value != 0);
  return n;
}

size_t leb128_decode(std::span<const uint8_t> in, uint32_t& value) {
  uint64_t result = 0;
  for (size_t i = 0; i < in.size() && i < kMaxLeb128Bytes; ++i) {
    const uint8_t byte = in[i];
    result |= static_cast<uint64_t>(byte & kPayload) << (7 * i);
    if ((byte & kContinue) == 0) {
      // A zero last byte after the first adds nothing: a shorter encoding exists.
      const bool canonical = i == 0 || byte != 0;
      if (!canonical || result > UINT32_MAX) return 0;
      value = static_cast<uint32_t>(result);
      return i + 1;
    }
  }
  return 0;  // truncated, or still continuing after five bytes
}

}  // namespace tern::protocol
