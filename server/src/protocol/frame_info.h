#pragma once
// The framing extras of an alt request (magic 0x08): a sequence of frame infos, each one
// byte of id (high nibble) and length (low nibble), either nibble 15 escaping to a following
// byte that adds 15, then `length` bytes of data.

#include <cstdint>
#include <span>

namespace tern::protocol {

enum class FrameInfoId : uint16_t {
  Barrier = 0,
  DurabilityRequirement = 1,
  DcpStreamId = 2,
  OpenTracingContext = 3,
  Impersonate = 4,
  PreserveTtl = 5,
};

struct FrameInfo {
  uint16_t id = 0;
  std::span<const uint8_t> data;
};

// Walks framing extras without copying them.
class FrameInfoReader {
 public:
  explicit FrameInfoReader(std::span<const uint8_t> framing_extras) : rest_(framing_extras) {}

  // Reads the next frame info: true if there was one, false at the end or when the next
  // entry runs past the end of the framing extras (then malformed() is true).
  bool next(FrameInfo& out);
  bool malformed() const { return malformed_; }

 private:
  std::span<const uint8_t> rest_;
  bool malformed_ = false;
};

}  // namespace tern::protocol
