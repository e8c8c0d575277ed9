// vbucket_of against CRC-32 values computed independently (Python's zlib.crc32), and the
// vbucket states with the three SET_VBUCKET encodings.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "common/testdata.h"
#include "cluster/vbucket_of.h"
#include "cluster/vbucket_state.h"

namespace tern::cluster {
namespace {

struct KeyVector {
  std::string key;
  uint16_t count;
  uint16_t expected;  // ((zlib.crc32(key) >> 16) & 0x7fff) % count
};

TEST(VBucketOf, MatchesTheSdkHash) {
  const std::vector<KeyVector> vectors = {
      {"", 1024, 0},                 // crc32 0x00000000
      {"a", 1024, 183},              // crc32 0xe8b7be43
      {"foo", 1024, 115},            // crc32 0x8c736521
      {"hello", 1024, 528},          // crc32 0x3610a686
      {"airline_10", 1024, 361},     // crc32 0x0d694ea7
      {"key::1", 1024, 415},         // crc32 0xc99ff714
      {std::string("\x00\xff", 2), 1024, 219},  // crc32 0x6cdbfd72
      {"caf\xc3\xa9", 1024, 173},    // "café" in UTF-8, crc32 0x98ad42b5
      {"a", 64, 55},
      {"hello", 64, 16},
      {"key::1", 64, 31},
      {"foo", 1, 0},
  };
  for (const KeyVector& v : vectors) {
    EXPECT_EQ(vbucket_of(v.key, v.count), v.expected) << v.key << " % " << v.count;
    const std::vector<uint8_t> bytes(v.key.begin(), v.key.end());
    EXPECT_EQ(vbucket_of(std::span<const uint8_t>(bytes), v.count), v.expected) << v.key;
  }
  EXPECT_EQ(kVBucketCount, 1024);
}

using testdata::load_mcbp_json;

// The vectors the .NET SDK's VBucketLocator is tested against: both sides must agree.
TEST(VBucketOf, MatchesTheSharedVectors) {
  const rapidjson::Document doc = load_mcbp_json("vbuckets.json");
  const auto count = static_cast<uint16_t>(doc["vbuckets"].GetUint());
  const auto& keys = doc["keys"].GetArray();
  ASSERT_GE(keys.Size(), 10u);
  for (const auto& row : keys) {
    const std::string key(row["key"].GetString(), row["key"].GetStringLength());
    const uint32_t crc = static_cast<uint32_t>(std::stoul(row["crc32"].GetString(), nullptr, 16));
    const auto expected = static_cast<uint16_t>(row["vbucket"].GetUint());
    // The vector's own arithmetic, so a bad row is told apart from a bad vbucket_of.
    ASSERT_EQ(((crc >> 16) & 0x7fff) % count, expected) << key;
    EXPECT_EQ(vbucket_of(key, count), expected) << key;
  }
}

TEST(VBucketState, NamesRoundTrip) {
  const std::vector<std::pair<VBucketState, std::string_view>> states = {
      {VBucketState::Active, "active"},
      {VBucketState::Replica, "replica"},
      {VBucketState::Pending, "pending"},
      {VBucketState::Dead, "dead"},
  };
  for (const auto& [state, name] : states) {
    EXPECT_EQ(vbucket_state_name(state), name);
    EXPECT_EQ(vbucket_state_from_name(name), state);
  }
  EXPECT_EQ(vbucket_state_from_name("Active"), std::nullopt);
  EXPECT_EQ(vbucket_state_name(static_cast<VBucketState>(9)), "unknown");
}

TEST(VBucketState, WireValues) {
  EXPECT_EQ(vbucket_state_from_wire(1), VBucketState::Active);
  EXPECT_EQ(vbucket_state_from_wire(2), VBucketState::Replica);
  EXPECT_EQ(vbucket_state_from_wire(3), VBucketState::Pending);
  EXPECT_EQ(vbucket_state_from_wire(4), VBucketState::Dead);
  EXPECT_EQ(vbucket_state_from_wire(0), std::nullopt);
  EXPECT_EQ(vbucket_state_from_wire(5), std::nullopt);
  EXPECT_EQ(vbucket_state_from_wire(0x01000000), std::nullopt);
}

struct SetVBucketVector {
  std::string name;
  std::vector<uint8_t> extras;
  std::string value;
  uint8_t datatype;
  std::optional<VBucketState> state;  // nullopt: rejected
  std::string json;
};

TEST(VBucketState, ParsesTheThreeSetVBucketEncodings) {
  const std::string topology = R"({"topology":[["n0",null]]})";
  const std::vector<SetVBucketVector> vectors = {
      {"1-byte extras", {0x02}, "", 0x00, VBucketState::Replica, ""},
      {"1-byte extras + JSON", {0x01}, topology, 0x01, VBucketState::Active, topology},
      {"1-byte extras, JSON value without JSON datatype", {0x01}, topology, 0x00, std::nullopt, ""},
      {"1-byte extras, JSON datatype without value", {0x01}, "", 0x01, std::nullopt, ""},
      {"u32 extras", {0x00, 0x00, 0x00, 0x03}, "", 0x00, VBucketState::Pending, ""},
      {"u32 extras with a value", {0x00, 0x00, 0x00, 0x03}, "x", 0x00, std::nullopt, ""},
      {"u32 value", {}, std::string("\x00\x00\x00\x04", 4), 0x00, VBucketState::Dead, ""},
      {"nothing", {}, "", 0x00, std::nullopt, ""},
      {"bad state 0", {0x00}, "", 0x00, std::nullopt, ""},
      {"bad state 5 in u32", {0x00, 0x00, 0x00, 0x05}, "", 0x00, std::nullopt, ""},
      {"u32 little-endian is not 1", {0x01, 0x00, 0x00, 0x00}, "", 0x00, std::nullopt, ""},
      {"2-byte extras", {0x00, 0x01}, "", 0x00, std::nullopt, ""},
  };
  for (const SetVBucketVector& v : vectors) {
    const auto value = std::span(reinterpret_cast<const uint8_t*>(v.value.data()), v.value.size());
    const auto parsed = parse_set_vbucket(v.extras, value, v.datatype);
    ASSERT_EQ(parsed.has_value(), v.state.has_value()) << v.name;
    if (!parsed) continue;
    EXPECT_EQ(parsed->state, *v.state) << v.name;
    EXPECT_EQ(parsed->json, v.json) << v.name;
  }
}

}  // namespace
}  // namespace tern::cluster
