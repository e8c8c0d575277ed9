#pragma once
// The protocol codec: pure functions from bytes to frames and back. No I/O, no allocation
// on the decode path. Table-tested with the byte vectors in testdata/mcbp/.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/frame.h"

namespace tern::protocol {

enum class DecodeResult {
  Ok,          // a whole frame was decoded
  NeedMore,    // the buffer holds only part of a frame; nothing was consumed
  BadMagic,    // the first byte is no known magic: the stream can't be trusted
  BadLengths,  // framing extras + extras + key exceed the body length: stream can't be trusted
};

// Decodes the header at the front of `bytes` (which must hold at least kHeaderSize bytes)
// without validating it.
Header decode_header(std::span<const uint8_t> bytes);

// A frame with the header's fields and an empty body: enough to address a response to a
// request whose body is unavailable (e.g. refused as too large).
Frame frame_from_header(const Header& header);

// Validates the header at the front of `bytes`: BadMagic, BadLengths, or Ok once at least
// the header is present (NeedMore before that). Lets a reader decide how to treat an
// oversized body before buffering it.
DecodeResult check_header(std::span<const uint8_t> bytes);

// Decodes one frame (request or response, any known magic) from the front of `bytes`.
// On Ok, `out` points into `bytes` and out.size() bytes make up the frame.
DecodeResult decode_frame(std::span<const uint8_t> bytes, Frame& out);

// What to put in a frame that is being encoded: a Frame whose spans point at the parts.
// Spans are copied; nothing is retained. Framing extras are written only with an alt magic
// (0x08, 0x18), whose key length is one byte.
using FrameParts = Frame;

// Bytes the encoded frame will occupy.
size_t encoded_size(const FrameParts& parts);

// Writes the frame into `out`, which must hold encoded_size(parts) bytes; returns bytes written.
size_t encode_frame(const FrameParts& parts, std::span<uint8_t> out);

// Appends the encoded frame to `out`.
void append_frame(const FrameParts& parts, std::vector<uint8_t>& out);

// Big-endian helpers for extras.
uint16_t load_be16(const uint8_t* p);
uint32_t load_be32(const uint8_t* p);
uint64_t load_be64(const uint8_t* p);
void store_be16(uint8_t* p, uint16_t v);
void store_be32(uint8_t* p, uint32_t v);
void store_be64(uint8_t* p, uint64_t v);

// Unsigned LEB128, as used for the collection-id prefix of keys (at most 5 bytes for a u32).
// encode returns bytes written into out (which must hold 5); decode returns bytes read, or 0
// if the input is truncated, longer than 5 bytes, or not canonical.
size_t leb128_encode(uint32_t value, std::span<uint8_t> out);
size_t leb128_decode(std::span<const uint8_t> in, uint32_t& value);

}  // namespace tern::protocol
