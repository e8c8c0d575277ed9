#include "protocol/frame_info.h"

namespace tern::protocol {

namespace {
constexpr uint8_t kEscape = 15;
}  // namespace

bool FrameInfoReader::next(FrameInfo& out) {
  if (rest_.empty() || malformed_) return false;
  size_t pos = 0;
  const uint8_t first = rest_[pos++];
  uint16_t id = first >> 4;
  size_t length = first & 0x0f;
  if (id == kEscape) {
    if (pos >= rest_.size()) return malformed_ = true, false;
    id = static_cast<uint16_t>(id + rest_[pos++]);
  }
  if (length == kEscape) {
    if (pos >= rest_.size()) return malformed_ = true, false;
    length += rest_[pos++];
  }
  if (rest_.size() - pos < length) return malformed_ = true, false;
  out.id = id;
  out.data = rest_.subspan(pos, length);
  rest_ = rest_.subspan(pos + length);
  return true;
}

}  // namespace tern::protocol
