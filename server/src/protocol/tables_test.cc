// Checks the generated status and opcode tables against testdata/mcbp/*.json, read here
// independently of the CMake generator, and the error map built from them.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <set>
#include <stdexcept>
#include <string>

#include "common/testdata.h"
#include "protocol/error_map.h"
#include "protocol/opcode.h"
#include "protocol/status.h"

namespace tern::protocol {
namespace {

using testdata::load_mcbp_json;

unsigned parse_code(const rapidjson::Value& row) {
  return static_cast<unsigned>(std::stoul(row["code"].GetString(), nullptr, 16));
}

std::string hex_key(unsigned code) {
  char key[8];
  std::snprintf(key, sizeof key, "%x", code);
  return key;
}

TEST(StatusTable, EveryRowHasItsText) {
  const rapidjson::Document doc = load_mcbp_json("statuses.json");
  ASSERT_GT(doc["statuses"].Size(), 60u);
  for (const auto& row : doc["statuses"].GetArray()) {
    const auto status = static_cast<Status>(parse_code(row));
    EXPECT_EQ(status_text(status), row["text"].GetString()) << row["name"].GetString();
  }
}

TEST(StatusTable, KeepsMemcachedTexts) {
  // memccapable checks these.
  EXPECT_EQ(status_text(Status::KeyEnoent), "Not found");
  EXPECT_EQ(status_text(Status::KeyEexists), "Data exists for key.");
  EXPECT_EQ(status_text(Status::E2big), "Too large.");
  EXPECT_EQ(status_text(Status::NotStored), "Not stored.");
  EXPECT_EQ(status_text(Status::DeltaBadval), "Non-numeric server-side value for incr or decr");
  EXPECT_EQ(status_text(static_cast<Status>(0x7777)), "Unknown error");
}

TEST(StatusTable, NamesMatchCodes) {
  EXPECT_EQ(static_cast<uint16_t>(Status::Rollback), 0x23);
  EXPECT_EQ(static_cast<uint16_t>(Status::UnknownScope), 0x8c);
  EXPECT_EQ(static_cast<uint16_t>(Status::SyncWriteReCommitInProgress), 0xa4);
  EXPECT_EQ(static_cast<uint16_t>(Status::SubdocPathEnoent), 0xc0);
  EXPECT_EQ(static_cast<uint16_t>(Status::SubdocMultiPathFailure), 0xcc);
  EXPECT_EQ(static_cast<uint16_t>(Status::SubdocSuccessDeleted), 0xcd);
  EXPECT_EQ(static_cast<uint16_t>(Status::SubdocFieldNotBinaryValue), 0xd8);
}

TEST(OpcodeTable, EveryRowHasItsNameAndLoudVariant) {
  const rapidjson::Document doc = load_mcbp_json("opcodes.json");
  std::set<std::string> quiet_names;
  for (const auto& row : doc["requests"].GetArray()) {
    const auto op = static_cast<Opcode>(parse_code(row));
    const std::string name = row["log_name"].GetString();
    EXPECT_EQ(opcode_name(op), name);
    if (row.HasMember("quiet_of")) {
      EXPECT_TRUE(is_quiet(op)) << name;
      EXPECT_NE(loud_variant(op), op) << name;
      EXPECT_FALSE(is_quiet(loud_variant(op))) << name;
      quiet_names.insert(name);
    } else {
      EXPECT_FALSE(is_quiet(op)) << name;
      EXPECT_EQ(loud_variant(op), op) << name;
    }
  }
  EXPECT_EQ(quiet_names.size(), 13u);
  EXPECT_EQ(opcode_name(static_cast<Opcode>(0x7f)), "UNKNOWN");
  for (const auto& row : doc["server_requests"].GetArray()) {
    EXPECT_EQ(server_opcode_name(static_cast<ServerOpcode>(parse_code(row))),
              row["log_name"].GetString());
  }
}

TEST(OpcodeTable, NamesMatchCodes) {
  EXPECT_EQ(loud_variant(Opcode::GetKQ), Opcode::GetK);
  EXPECT_EQ(static_cast<uint8_t>(Opcode::SetVbucket), 0x3d);
  EXPECT_EQ(static_cast<uint8_t>(Opcode::GetMeta), 0xa0);
  EXPECT_EQ(static_cast<uint8_t>(Opcode::SetClusterConfig), 0xb4);
  EXPECT_EQ(static_cast<uint8_t>(Opcode::SubdocGet), 0xc5);
  EXPECT_EQ(static_cast<uint8_t>(Opcode::SubdocMultiLookup), 0xd0);
  EXPECT_EQ(static_cast<uint8_t>(Opcode::SubdocMultiMutation), 0xd1);
  EXPECT_EQ(static_cast<uint8_t>(Opcode::SubdocReplaceBodyWithXattr), 0xd3);
  EXPECT_EQ(opcode_name(Opcode::GetClusterConfig), "GET_CLUSTER_CONFIG");
  EXPECT_EQ(static_cast<uint8_t>(ServerOpcode::ClustermapChangeNotification), 0x01);
  EXPECT_EQ(static_cast<uint8_t>(ServerOpcode::ActiveExternalUsers), 0x03);
}

TEST(ErrorMap, IsVersion2WithAnEntryPerStatus) {
  rapidjson::Document map;
  const std::string text(error_map_json());
  map.Parse(text.c_str());
  ASSERT_FALSE(map.HasParseError()) << text;
  ASSERT_TRUE(map.IsObject());
  EXPECT_EQ(map["version"].GetInt(), 2);
  EXPECT_EQ(map["version"].GetInt(), error_map_version());
  EXPECT_GE(map["revision"].GetInt(), 1);
  EXPECT_EQ(map["revision"].GetInt(), error_map_revision());
  const auto& errors = map["errors"];
  ASSERT_TRUE(errors.IsObject());

  const rapidjson::Document table = load_mcbp_json("statuses.json");
  EXPECT_EQ(errors.MemberCount(), table["statuses"].Size());
  for (const auto& row : table["statuses"].GetArray()) {
    const std::string key = hex_key(parse_code(row));
    ASSERT_TRUE(errors.HasMember(key.c_str())) << key;
    const auto& entry = errors[key.c_str()];
    const auto& expected = row["error_map"];
    ASSERT_TRUE(entry["name"].IsString());
    ASSERT_TRUE(entry["desc"].IsString());
    ASSERT_TRUE(entry["attrs"].IsArray());
    EXPECT_GT(entry["name"].GetStringLength(), 0u) << key;
    EXPECT_GT(entry["desc"].GetStringLength(), 0u) << key;
    EXPECT_GT(entry["attrs"].Size(), 0u) << key;
    EXPECT_EQ(entry["name"], expected["name"]) << key;
    EXPECT_EQ(entry["desc"], expected["desc"]) << key;
    EXPECT_EQ(entry["attrs"], expected["attrs"]) << key;
  }
}

// The attributes the SDKs act on, for the statuses ternd sends most (Couchbase's own map).
TEST(ErrorMap, AttributesOfCommonStatuses) {
  rapidjson::Document map;
  const std::string text(error_map_json());
  map.Parse(text.c_str());
  const auto attrs = [&](const char* key) {
    std::set<std::string> out;
    for (const auto& attr : map["errors"][key]["attrs"].GetArray()) out.insert(attr.GetString());
    return out;
  };
  using Set = std::set<std::string>;
  EXPECT_EQ(attrs("1"), Set({"item-only"}));
  EXPECT_EQ(attrs("7"), Set({"fetch-config", "invalid-input"}));
  EXPECT_EQ(attrs("8"), Set({"conn-state-invalidated"}));
  EXPECT_EQ(attrs("9"), Set({"item-locked", "item-only", "retry-now"}));
  EXPECT_EQ(attrs("20"), Set({"conn-state-invalidated", "auth"}));
  EXPECT_EQ(attrs("24"), Set({"support"}));
  EXPECT_EQ(attrs("86"), Set({"temp", "retry-now"}));
  EXPECT_EQ(attrs("88"), Set({"invalid-input"}));
  EXPECT_EQ(attrs("a2"), Set({"item-only", "retry-later"}));
  EXPECT_EQ(attrs("cd"), Set({"item-deleted", "success", "subdoc"}));
}

}  // namespace
}  // namespace tern::protocol
