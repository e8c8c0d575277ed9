#pragma once
// The 24-byte header and the parts of a frame. All integers are big-endian on the wire.

#include <cstddef>
#include <cstdint>
#include <span>

namespace tern::protocol {

inline constexpr size_t kHeaderSize = 24;

enum class Magic : uint8_t {
  ClientRequest = 0x80,
  ClientResponse = 0x81,
  AltClientRequest = 0x08,   // request with framing extras
  AltClientResponse = 0x18,  // response with framing extras
  ServerRequest = 0x82,
  ServerResponse = 0x83,
};

bool is_request_magic(uint8_t magic);
bool is_response_magic(uint8_t magic);
bool is_known_magic(uint8_t magic);
// True for what a client may send as a request: 0x80 or 0x08.
bool is_client_request_magic(uint8_t magic);
// True for the alt magics (0x08, 0x18), whose header splits bytes 2-3 into a framing-extras
// length and a one-byte key length.
bool has_framing_extras(uint8_t magic);

// A decoded frame. The spans point into the buffer that was decoded and are valid only
// as long as it is. Field 6-7 is the vbucket in a request and the status in a response;
// `vbucket_or_status` carries it either way.
struct Frame {
  uint8_t magic = 0;
  uint8_t opcode = 0;
  uint8_t datatype = 0;
  uint16_t vbucket_or_status = 0;
  uint32_t opaque = 0;
  uint64_t cas = 0;
  std::span<const uint8_t> framing_extras;
  std::span<const uint8_t> extras;
  std::span<const uint8_t> key;
  std::span<const uint8_t> value;

  // Bytes this frame occupies on the wire (header + body).
  size_t size() const {
    return kHeaderSize + framing_extras.size() + extras.size() + key.size() + value.size();
  }
};

// The fixed-size fields of a header, decoded without looking at the body.
struct Header {
  uint8_t magic = 0;
  uint8_t opcode = 0;
  uint8_t framing_extras_length = 0;
  uint16_t key_length = 0;
  uint8_t extras_length = 0;
  uint8_t datatype = 0;
  uint16_t vbucket_or_status = 0;
  uint32_t body_length = 0;
  uint32_t opaque = 0;
  uint64_t cas = 0;
};

}  // namespace tern::protocol
