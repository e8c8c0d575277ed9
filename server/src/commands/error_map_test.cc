// GET_ERROR_MAP as the SDKs ask for it: version 2, with an entry (name, desc, attrs) for
// every status ternd can send, or the C++ core's parser throws.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <string>

#include "commands/dispatcher_harness.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

class ErrorMapTest : public CommandsTest {
 protected:
  Response error_map(std::string value) {
    Connection& c = connect();
    c.hello({Feature::Xerror, Feature::Json});
    return c.one({.opcode = Opcode::GetErrorMap, .value = std::move(value)});
  }

  static std::string hex_key(Status status) {
    char key[8];
    std::snprintf(key, sizeof key, "%x", static_cast<unsigned>(status));
    return key;
  }
};

TEST_F(ErrorMapTest, VersionTwoParsesAndHasAnEntryForEveryStatus) {
  const Response answer = error_map(text_of(be16(2)));
  ASSERT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.datatype, kJsonDatatype);
  rapidjson::Document map;
  map.Parse(answer.value.data(), answer.value.size());
  ASSERT_FALSE(map.HasParseError());
  ASSERT_TRUE(map.IsObject());
  ASSERT_TRUE(map.HasMember("version") && map["version"].IsInt());
  EXPECT_EQ(map["version"].GetInt(), 2);
  ASSERT_TRUE(map.HasMember("revision") && map["revision"].IsInt());
  EXPECT_GE(map["revision"].GetInt(), 1);
  ASSERT_TRUE(map.HasMember("errors") && map["errors"].IsObject());
  const auto& errors = map["errors"];

  // Every status the server has a name for, so every one a handler or a check may send.
  const Status every_status[] = {
#define TERN_STATUS(name, code, text, map_name, map_desc, map_attrs) Status::name,
#include "protocol/status_table.inc"
#undef TERN_STATUS
  };
  for (Status status : every_status) {
    const std::string key = hex_key(status);
    ASSERT_TRUE(errors.HasMember(key.c_str())) << key;
    const auto& entry = errors[key.c_str()];
    ASSERT_TRUE(entry.IsObject()) << key;
    EXPECT_TRUE(entry.HasMember("name") && entry["name"].IsString() &&
                entry["name"].GetStringLength() > 0)
        << key;
    EXPECT_TRUE(entry.HasMember("desc") && entry["desc"].IsString()) << key;
    ASSERT_TRUE(entry.HasMember("attrs") && entry["attrs"].IsArray()) << key;
    for (const auto& attr : entry["attrs"].GetArray()) EXPECT_TRUE(attr.IsString()) << key;
  }
  EXPECT_EQ(errors.MemberCount(), std::size(every_status));

  // The attributes the SDKs act on, where it matters most.
  auto has_attr = [&](Status status, const char* attr) {
    for (const auto& a : errors[hex_key(status).c_str()]["attrs"].GetArray()) {
      if (std::string(a.GetString()) == attr) return true;
    }
    return false;
  };
  EXPECT_TRUE(has_attr(Status::Locked, "item-locked"));
  EXPECT_TRUE(has_attr(Status::Etmpfail, "temp"));
  EXPECT_TRUE(has_attr(Status::AuthError, "auth"));
  EXPECT_TRUE(has_attr(Status::KeyEnoent, "item-only"));
}

// A client that reads a newer format still gets version 2, which it can read.
TEST_F(ErrorMapTest, AnyVersionFromOneUpGetsTheMap) {
  const std::string v2 = error_map(text_of(be16(2))).value;
  EXPECT_EQ(error_map(text_of(be16(1))).value, v2);
  EXPECT_EQ(error_map(text_of(be16(9))).value, v2);
}

TEST_F(ErrorMapTest, VersionZeroOrABadLengthIsEinval) {
  expect_error(error_map(text_of(be16(0))), Status::Einval);
  expect_error(error_map(""), Status::Einval);
  expect_error(error_map("\x02"), Status::Einval);
  expect_error(error_map(text_of(be32(2))), Status::Einval);
}

TEST_F(ErrorMapTest, NeedsNoAuthentication) {
  Connection& c = connect();  // secure node, nothing said yet
  EXPECT_EQ(c.one({.opcode = Opcode::GetErrorMap, .value = text_of(be16(2))}).status,
            Status::Success);
}

}  // namespace
}  // namespace tern::commands
