// Table-driven tests of the codec against the shared vectors in testdata/mcbp/.
#include "protocol/codec.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/testdata.h"
#include "protocol/opcode.h"
#include "protocol/status.h"

namespace tern::protocol {
namespace {

using Bytes = std::vector<uint8_t>;

using testdata::load_mcbp_json;

Bytes from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd hex length");
  Bytes out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoul(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

Bytes to_bytes(std::span<const uint8_t> span) { return Bytes(span.begin(), span.end()); }

DecodeResult expected_result(std::string_view name) {
  if (name == "ok") return DecodeResult::Ok;
  if (name == "need_more") return DecodeResult::NeedMore;
  if (name == "bad_magic") return DecodeResult::BadMagic;
  if (name == "bad_lengths") return DecodeResult::BadLengths;
  throw std::runtime_error("unknown result " + std::string(name));
}

// One vector of frames.json, with its expected fields parsed.
struct FrameVector {
  std::string name;
  Bytes input;
  DecodeResult result;
  Frame expected;  // spans point into the owned byte vectors below
  Bytes framing_extras, extras, key, value;
  size_t size = 0;
};

std::vector<FrameVector> load_frame_vectors() {
  const rapidjson::Document doc = load_mcbp_json("frames.json");
  std::vector<FrameVector> vectors;
  for (const auto& v : doc["frames"].GetArray()) {
    FrameVector fv;
    fv.name = v["name"].GetString();
    fv.input = from_hex(v["hex"].GetString());
    fv.result = expected_result(v["result"].GetString());
    if (fv.result == DecodeResult::Ok) {
      fv.expected.magic = static_cast<uint8_t>(v["magic"].GetUint());
      fv.expected.opcode = static_cast<uint8_t>(v["opcode"].GetUint());
      fv.expected.datatype = static_cast<uint8_t>(v["datatype"].GetUint());
      fv.expected.vbucket_or_status = static_cast<uint16_t>(v["vbucket_or_status"].GetUint());
      fv.expected.opaque = v["opaque"].GetUint();
      fv.expected.cas = std::stoull(v["cas"].GetString());
      fv.framing_extras = from_hex(v["framing_extras"].GetString());
      fv.extras = from_hex(v["extras"].GetString());
      fv.key = from_hex(v["key"].GetString());
      fv.value = from_hex(v["value"].GetString());
      fv.size = v["size"].GetUint();
    }
    vectors.push_back(std::move(fv));
  }
  return vectors;
}

std::vector<FrameVector> load_ok_frame_vectors() {
  std::vector<FrameVector> ok;
  for (auto& v : load_frame_vectors()) {
    if (v.result == DecodeResult::Ok) ok.push_back(std::move(v));
  }
  return ok;
}

class FrameVectors : public ::testing::TestWithParam<FrameVector> {};
class OkFrameVectors : public ::testing::TestWithParam<FrameVector> {};

TEST_P(FrameVectors, DecodesToTheExpectedResultAndFields) {
  const FrameVector& v = GetParam();
  Frame frame;
  ASSERT_EQ(decode_frame(v.input, frame), v.result);
  if (v.result != DecodeResult::Ok) return;
  EXPECT_EQ(frame.magic, v.expected.magic);
  EXPECT_EQ(frame.opcode, v.expected.opcode);
  EXPECT_EQ(frame.datatype, v.expected.datatype);
  EXPECT_EQ(frame.vbucket_or_status, v.expected.vbucket_or_status);
  EXPECT_EQ(frame.opaque, v.expected.opaque);
  EXPECT_EQ(frame.cas, v.expected.cas);
  EXPECT_EQ(to_bytes(frame.framing_extras), v.framing_extras);
  EXPECT_EQ(to_bytes(frame.extras), v.extras);
  EXPECT_EQ(to_bytes(frame.key), v.key);
  EXPECT_EQ(to_bytes(frame.value), v.value);
  EXPECT_EQ(frame.size(), v.size);
}

TEST_P(FrameVectors, CheckHeaderAgreesWithDecodeOnceTheHeaderIsThere) {
  const FrameVector& v = GetParam();
  const DecodeResult checked = check_header(v.input);
  if (v.result == DecodeResult::BadMagic || v.result == DecodeResult::BadLengths) {
    EXPECT_EQ(checked, v.result);
  } else if (v.input.size() >= kHeaderSize) {
    EXPECT_EQ(checked, DecodeResult::Ok);
  } else {
    EXPECT_EQ(checked, DecodeResult::NeedMore);
  }
}

TEST_P(OkFrameVectors, RoundTrip) {
  const FrameVector& v = GetParam();
  FrameParts parts;
  parts.magic = v.expected.magic;
  parts.opcode = v.expected.opcode;
  parts.datatype = v.expected.datatype;
  parts.vbucket_or_status = v.expected.vbucket_or_status;
  parts.opaque = v.expected.opaque;
  parts.cas = v.expected.cas;
  parts.framing_extras = v.framing_extras;
  parts.extras = v.extras;
  parts.key = v.key;
  parts.value = v.value;
  const Bytes expected(v.input.begin(), v.input.begin() + static_cast<ptrdiff_t>(v.size));

  ASSERT_EQ(encoded_size(parts), v.size);
  Bytes out(v.size);
  EXPECT_EQ(encode_frame(parts, out), v.size);
  EXPECT_EQ(out, expected);

  Bytes appended = {0xaa};
  append_frame(parts, appended);
  ASSERT_EQ(appended.size(), v.size + 1);
  EXPECT_EQ(appended[0], 0xaa);
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), appended.begin() + 1));
}

TEST_P(OkFrameVectors, EveryProperPrefixNeedsMore) {
  const FrameVector& v = GetParam();
  for (size_t n = 0; n < v.size; ++n) {
    Frame frame;
    EXPECT_EQ(decode_frame(std::span<const uint8_t>(v.input).first(n), frame),
              DecodeResult::NeedMore)
        << n << " bytes";
  }
}

std::string vector_index(const ::testing::TestParamInfo<FrameVector>& info) {
  return "v" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Mcbp, FrameVectors, ::testing::ValuesIn(load_frame_vectors()),
                         vector_index);
INSTANTIATE_TEST_SUITE_P(Mcbp, OkFrameVectors, ::testing::ValuesIn(load_ok_frame_vectors()),
                         vector_index);

TEST(FrameVectorFile, CoversEveryResult) {
  int counts[4] = {};
  for (const auto& v : load_frame_vectors()) ++counts[static_cast<int>(v.result)];
  for (int c : counts) EXPECT_GT(c, 0);
}

TEST(Codec, RandomBuffersDecodeWithinTheirBounds) {
  std::mt19937 rng(2026);
  const uint8_t magics[] = {0x80, 0x81, 0x08, 0x18, 0x82, 0x83, 0x00};
  int ok = 0;
  for (int i = 0; i < 50000; ++i) {
    Bytes buffer(rng() % 64);
    for (auto& b : buffer) b = static_cast<uint8_t>(rng() % 4 == 0 ? rng() : rng() % 8);
    if (!buffer.empty()) buffer[0] = magics[rng() % 7];
    if (buffer.size() >= kHeaderSize && rng() % 2 == 0) {  // a body length that may fit
      store_be32(buffer.data() + 8, static_cast<uint32_t>(rng() % 48));
    }
    Frame frame;
    if (decode_frame(buffer, frame) != DecodeResult::Ok) continue;
    ++ok;
    ASSERT_LE(frame.size(), buffer.size());
    EXPECT_EQ(frame.framing_extras.data(), buffer.data() + kHeaderSize);
    EXPECT_EQ(frame.value.data() + frame.value.size(), buffer.data() + frame.size());
  }
  EXPECT_GT(ok, 100);
}

TEST(Codec, DecodeHeaderSplitsKeyLengthOnlyForAltMagic) {
  const Bytes classic = from_hex("80000102000000000000000000000000" "0000000000000000");
  EXPECT_EQ(decode_header(classic).key_length, 0x0102);
  EXPECT_EQ(decode_header(classic).framing_extras_length, 0);
  const Bytes alt = from_hex("08000102000000000000000000000000" "0000000000000000");
  EXPECT_EQ(decode_header(alt).key_length, 0x02);
  EXPECT_EQ(decode_header(alt).framing_extras_length, 0x01);
}

TEST(Codec, HeaderOnlyFrameKeepsTheHeaderFieldsAndNoBody) {
  const Bytes bytes = from_hex("80010005080000030000001200000007" "0000000000000009");
  const Frame frame = frame_from_header(decode_header(bytes));
  EXPECT_EQ(frame.magic, 0x80);
  EXPECT_EQ(frame.opcode, 0x01);
  EXPECT_EQ(frame.vbucket_or_status, 3);
  EXPECT_EQ(frame.opaque, 7u);
  EXPECT_EQ(frame.cas, 9u);
  EXPECT_EQ(frame.size(), kHeaderSize);
}

TEST(Frame, MagicClassification) {
  EXPECT_TRUE(is_client_request_magic(0x80));
  EXPECT_TRUE(is_client_request_magic(0x08));
  EXPECT_FALSE(is_client_request_magic(0x82));
  EXPECT_TRUE(is_request_magic(0x82));
  EXPECT_TRUE(is_response_magic(0x18));
  EXPECT_FALSE(is_known_magic(0x00));
  EXPECT_TRUE(has_framing_extras(0x18));
  EXPECT_FALSE(has_framing_extras(0x81));
}

TEST(Codec, ClassicMagicNeverWritesFramingExtras) {
  const Bytes framing = {0x01, 0x02};
  FrameParts parts;
  parts.magic = 0x81;
  parts.framing_extras = framing;
  EXPECT_EQ(encoded_size(parts), kHeaderSize);
  Bytes out;
  append_frame(parts, out);
  EXPECT_EQ(out.size(), kHeaderSize);
  EXPECT_EQ(load_be32(out.data() + 8), 0u);
}

TEST(Codec, BigEndianHelpersRoundTrip) {
  uint8_t buf[8];
  store_be16(buf, 0x1234);
  EXPECT_EQ(buf[0], 0x12);
  EXPECT_EQ(load_be16(buf), 0x1234);
  store_be32(buf, 0xdeadbeef);
  EXPECT_EQ(buf[0], 0xde);
  EXPECT_EQ(load_be32(buf), 0xdeadbeefu);
  store_be64(buf, 0x0102030405060708ull);
  EXPECT_EQ(buf[0], 0x01);
  EXPECT_EQ(buf[7], 0x08);
  EXPECT_EQ(load_be64(buf), 0x0102030405060708ull);
}

TEST(Leb128, ValidVectorsDecodeAndEncode) {
  const rapidjson::Document doc = load_mcbp_json("leb128.json");
  ASSERT_GT(doc["valid"].Size(), 0u);
  for (const auto& v : doc["valid"].GetArray()) {
    const Bytes bytes = from_hex(v["hex"].GetString());
    const uint32_t expected = v["value"].GetUint();
    uint32_t decoded = 0;
    EXPECT_EQ(leb128_decode(bytes, decoded), bytes.size()) << v["hex"].GetString();
    EXPECT_EQ(decoded, expected) << v["hex"].GetString();
    uint8_t out[5];
    const size_t n = leb128_encode(expected, out);
    EXPECT_EQ(Bytes(out, out + n), bytes) << expected;
  }
}

TEST(Leb128, InvalidVectorsAreRejected) {
  const rapidjson::Document doc = load_mcbp_json("leb128.json");
  ASSERT_GT(doc["invalid"].Size(), 0u);
  for (const auto& v : doc["invalid"].GetArray()) {
    uint32_t decoded = 0;
    EXPECT_EQ(leb128_decode(from_hex(v["hex"].GetString()), decoded), 0u) << v["name"].GetString();
  }
}

TEST(Leb128, DecodeStopsAtThePrefixOfALongerKey) {
  const Bytes key = {0x08, 'k', 'e', 'y'};
  uint32_t cid = 99;
  EXPECT_EQ(leb128_decode(key, cid), 1u);
  EXPECT_EQ(cid, 8u);
}

TEST(Opcode, QuietVariantsMapToTheirLoudOnes) {
  EXPECT_TRUE(is_quiet(Opcode::GetKQ));
  EXPECT_EQ(loud_variant(Opcode::GetKQ), Opcode::GetK);
  EXPECT_EQ(loud_variant(Opcode::SetQ), Opcode::Set);
  EXPECT_EQ(loud_variant(Opcode::GatQ), Opcode::Gat);
  EXPECT_FALSE(is_quiet(Opcode::Get));
  EXPECT_EQ(loud_variant(Opcode::Noop), Opcode::Noop);
  EXPECT_EQ(opcode_name(Opcode::PrependQ), "PREPENDQ");
  EXPECT_EQ(opcode_name(static_cast<Opcode>(0x42)), "UNKNOWN");
}

TEST(Status, TextsMatchMemcached) {
  EXPECT_EQ(status_text(Status::KeyEnoent), "Not found");
  EXPECT_EQ(status_text(Status::KeyEexists), "Data exists for key.");
  EXPECT_EQ(status_text(Status::UnknownCommand), "Unknown command");
}

}  // namespace
}  // namespace tern::protocol
