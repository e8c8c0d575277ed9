#include "protocol/codec.h"

#include <cstring>

namespace tern::protocol {

Header decode_header(std::span<const uint8_t> bytes) {
  const uint8_t* p = bytes.data();
  Header h;
  h.magic = p[0];
  h.opcode = p[1];
  if (has_framing_extras(h.magic)) {
    h.framing_extras_length = p[2];
    h.key_length = p[3];
  } else {
    h.key_length = load_be16(p + 2);
  }
  h.extras_length = p[4];
  h.datatype = p[5];
  h.vbucket_or_status = load_be16(p + 6);
  h.body_length = load_be32(p + 8);
  h.opaque = load_be32(p + 12);
  h.cas = load_be64(p + 16);
  return h;
}

Frame frame_from_header(const Header& h) {
  Frame frame;
  frame.magic = h.magic;
  frame.opcode = h.opcode;
  frame.datatype = h.datatype;
  frame.vbucket_or_status = h.vbucket_or_status;
  frame.opaque = h.opaque;
  frame.cas = h.cas;
  return frame;
}

namespace {

// check_header's verdict, with the header decoded into `h` when there is one; decode_frame
// shares it so that the hot path decodes each header once.
DecodeResult check_and_decode_header(std::span<const uint8_t> bytes, Header& h) {
  // The magic alone tells a foreign stream (e.g. the text protocol) apart; no need to wait.
  if (!bytes.empty() && !is_known_magic(bytes[0])) return DecodeResult::BadMagic;
  if (bytes.size() < kHeaderSize) return DecodeResult::NeedMore;
  h = decode_header(bytes);
  const uint64_t parts = uint64_t{h.framing_extras_length} + h.extras_length + h.key_length;
  if (parts > h.body_length) return DecodeResult::BadLengths;
  return DecodeResult::Ok;
}

}  // namespace

DecodeResult check_header(std::span<const uint8_t> bytes) {
  Header h;
  return check_and_decode_header(bytes, h);
}

DecodeResult decode_frame(std::span<const uint8_t> bytes, Frame& out) {
  Header h;
  const DecodeResult checked = check_and_decode_header(bytes, h);
  if (checked != DecodeResult::Ok) return checked;
  if (bytes.size() - kHeaderSize < h.body_length) return DecodeResult::NeedMore;

  out = frame_from_header(h);
  auto body = bytes.subspan(kHeaderSize, h.body_length);
  out.framing_extras = body.first(h.framing_extras_length);
  body = body.subspan(h.framing_extras_length);
  out.extras = body.first(h.extras_length);
  body = body.subspan(h.extras_length);
  out.key = body.first(h.key_length);
  out.value = body.subspan(h.key_length);
  return DecodeResult::Ok;
}

namespace {

// Classic magics have no framing-extras field, so their framing extras are never written.
size_t framing_extras_size(const FrameParts& parts) {
  return has_framing_extras(parts.magic) ? parts.framing_extras.size() : 0;
}

uint8_t* put(uint8_t* p, std::span<const uint8_t> bytes) {
  if (!bytes.empty()) std::memcpy(p, bytes.data(), bytes.size());
  return p + bytes.size();
}

}  // namespace

size_t encoded_size(const FrameParts& parts) {
  return kHeaderSize + framing_extras_size(parts) + parts.extras.size() + parts.key.size() +
         parts.value.size();
}

size_t encode_frame(const FrameParts& parts, std::span<uint8_t> out) {
  const size_t framing = framing_extras_size(parts);
  const size_t body = encoded_size(parts) - kHeaderSize;
  uint8_t* p = out.data();
  p[0] = parts.magic;
  p[1] = parts.opcode;
  if (has_framing_extras(parts.magic)) {
    p[2] = static_cast<uint8_t>(framing);
    p[3] = static_cast<uint8_t>(parts.key.size());
  } else {
    store_be16(p + 2, static_cast<uint16_t>(parts.key.size()));
  }
  p[4] = static_cast<uint8_t>(parts.extras.size());
  p[5] = parts.datatype;
  store_be16(p + 6, parts.vbucket_or_status);
  store_be32(p + 8, static_cast<uint32_t>(body));
  store_be32(p + 12, parts.opaque);
  store_be64(p + 16, parts.cas);
  p += kHeaderSize;
  p = put(p, parts.framing_extras.first(framing));
  p = put(p, parts.extras);
  p = put(p, parts.key);
  p = put(p, parts.value);
  return kHeaderSize + body;
}

void append_frame(const FrameParts& parts, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  out.resize(start + encoded_size(parts));
  encode_frame(parts, std::span<uint8_t>(out).subspan(start));
}

}  // namespace tern::protocol
