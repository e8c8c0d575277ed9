// libFuzzer target: bytes as a connection receives them, through the frame codec and the
// checks a request passes before its handler runs (request_checks.h).
//
// Input: one byte n, then n little-endian u16 feature codes, which go through HELLO's
// negotiate() to make the session's features; the rest is the byte stream, decoded frame
// after frame until it needs more bytes or cannot be trusted.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "commands/command_table.h"
#include "commands/features.h"
#include "commands/request_checks.h"
#include "common/fuzz_check.h"
#include "protocol/codec.h"
#include "protocol/frame_info.h"
#include "protocol/opcode.h"

namespace {

using namespace tern;

bool within(std::span<const uint8_t> part, std::span<const uint8_t> whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

bool within(std::string_view part, std::span<const uint8_t> whole) {
  return within(std::span(reinterpret_cast<const uint8_t*>(part.data()), part.size()), whole);
}

// The session's features, from the front of the input; consumes what it reads.
commands::FeatureSet read_features(std::span<const uint8_t>& input) {
  commands::FeatureSet features;
  if (input.empty()) return features;
  const size_t count = std::min<size_t>(input[0], (input.size() - 1) / 2);
  std::vector<uint16_t> requested(count);
  for (size_t i = 0; i < count; ++i) {
    requested[i] = static_cast<uint16_t>(input[1 + 2 * i] | input[2 + 2 * i] << 8);
  }
  input = input.subspan(1 + 2 * count);
  const std::vector<commands::Feature> accepted = commands::negotiate(requested);
  TERN_FUZZ_CHECK(accepted.size() <= requested.size());
  for (commands::Feature feature : accepted) {
    TERN_FUZZ_CHECK(commands::is_supported(feature));
    TERN_FUZZ_CHECK(std::count(accepted.begin(), accepted.end(), feature) == 1);
    features.add(feature);
  }
  return features;
}

void check_frame_infos(std::span<const uint8_t> framing_extras) {
  protocol::FrameInfoReader reader(framing_extras);
  protocol::FrameInfo info;
  size_t read = 0;
  while (reader.next(info)) {
    TERN_FUZZ_CHECK(within(info.data, framing_extras));
    TERN_FUZZ_CHECK(++read <= framing_extras.size());
  }
}

// A key's collection prefix: what decodes re-encodes to the same bytes (canonical LEB128).
void check_leb128(std::span<const uint8_t> key) {
  uint32_t value = 0;
  const size_t read = protocol::leb128_decode(key, value);
  TERN_FUZZ_CHECK(read <= 5 && read <= key.size());
  if (read == 0) return;
  uint8_t encoded[5];
  TERN_FUZZ_CHECK(protocol::leb128_encode(value, encoded) == read);
  TERN_FUZZ_CHECK(std::memcmp(encoded, key.data(), read) == 0);
}

void check_document_key(std::span<const uint8_t> wire_key, bool collections) {
  commands::DocumentKey key;
  commands::StoredKeyBuffer scratch;
  if (commands::decode_document_key(wire_key, collections, key, scratch) !=
      protocol::Status::Success) {
    return;
  }
  TERN_FUZZ_CHECK(!key.logical.empty() && within(key.logical, wire_key));
  TERN_FUZZ_CHECK(key.logical.size() <= commands::kMaxKeyLength);
  if (!collections)
    TERN_FUZZ_CHECK(key.collection_id == 0 && key.logical.size() == wire_key.size());
  const bool copied = key.stored.data() == scratch.data();
  TERN_FUZZ_CHECK(copied || key.stored == key.logical);
  // A copy is marked with 0x00, which no stored-as-sent key starts with.
  TERN_FUZZ_CHECK(copied == (key.stored[0] == '\0'));
  if (copied) TERN_FUZZ_CHECK(key.stored.size() <= scratch.size());
}

void check_request(const protocol::Frame& frame, const commands::FeatureSet& features) {
  const commands::CommandSpec* spec =
      commands::find_command(protocol::loud_variant(static_cast<protocol::Opcode>(frame.opcode)));
  if (spec == nullptr) return;
  if (commands::check_shape(*spec, frame, features) != protocol::Status::Success) return;
  TERN_FUZZ_CHECK(frame.key.size() <= commands::kMaxPrefixedKeyLength);
  TERN_FUZZ_CHECK(spec->key != commands::KeyRule::Required || !frame.key.empty());
  TERN_FUZZ_CHECK(spec->takes_value || frame.value.empty());
  commands::FrameInfoRequests requests;
  const protocol::Status infos = commands::check_frame_infos(*spec, frame, features, requests);
  if (infos == protocol::Status::Success && requests.durability.level != 0) {
    TERN_FUZZ_CHECK(spec->is_mutation);
  }
  if (requests.preserve_ttl) TERN_FUZZ_CHECK(spec->is_mutation);
  check_document_key(frame.key, features.has(commands::Feature::Collections));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> input(data, size);
  const commands::FeatureSet features = read_features(input);
  std::vector<uint8_t> encoded;
  while (!input.empty()) {
    protocol::Frame frame;
    const protocol::DecodeResult result = protocol::decode_frame(input, frame);
    const protocol::DecodeResult header = protocol::check_header(input);
    if (result != protocol::DecodeResult::NeedMore || input.size() < protocol::kHeaderSize) {
      TERN_FUZZ_CHECK(header == result);
    } else {
      TERN_FUZZ_CHECK(header == protocol::DecodeResult::Ok);  // a header, but not the body
    }
    if (result != protocol::DecodeResult::Ok) break;

    TERN_FUZZ_CHECK(frame.size() <= input.size());
    const auto whole = input.first(frame.size());
    for (auto part : {frame.framing_extras, frame.extras, frame.key, frame.value}) {
      TERN_FUZZ_CHECK(within(part, whole));
    }
    // What was decoded encodes back to the same bytes.
    encoded.clear();
    protocol::append_frame(frame, encoded);
    TERN_FUZZ_CHECK(encoded.size() == frame.size());
    TERN_FUZZ_CHECK(std::equal(encoded.begin(), encoded.end(), whole.begin()));

    check_frame_infos(frame.framing_extras);
    check_leb128(frame.key);
    if (protocol::is_client_request_magic(frame.magic)) check_request(frame, features);
    input = input.subspan(frame.size());
  }
  return 0;
}
