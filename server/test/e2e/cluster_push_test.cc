// Duplex and ClustermapChangeNotification, end to end: when an administrator installs a new
// cluster map, a connection that negotiated both gets it pushed (a server request, magic
// 0x82, opcode 0x01); a connection that did not gets nothing and sees the new map on its
// next GET_CLUSTER_CONFIG.

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "couchbase_session.h"
#include "ternd_process.h"

namespace tern::e2e {
namespace {

constexpr uint8_t kServerRequestMagic = 0x82;
constexpr uint8_t kServerResponseMagic = 0x83;
constexpr uint8_t kClustermapChangeNotificationOpcode = 0x01;

// The integer value of top-level member `name` in a cluster map's JSON ("rev", "revEpoch").
int64_t json_integer(const std::string& json, const std::string& name) {
  rapidjson::Document map;
  map.Parse(json.c_str());
  if (map.HasParseError() || !map.IsObject() || !map.HasMember(name.c_str()) ||
      !map[name.c_str()].IsInt64()) {
    ADD_FAILURE() << "no integer \"" << name << "\" in " << json.substr(0, 200);
    return -1;
  }
  return map[name.c_str()].GetInt64();
}

// `json` with its "rev" set to `rev`.
std::string with_rev(const std::string& json, int64_t rev) {
  rapidjson::Document map;
  map.Parse(json.c_str());
  map["rev"].SetInt64(rev);
  rapidjson::StringBuffer text;
  rapidjson::Writer<rapidjson::StringBuffer> writer(text);
  map.Accept(writer);
  return text.GetString();
}

TEST(ClusterPushTest, NewMapIsPushedToSubscribersAndPolledByOthers) {
  TerndProcess server(dev_config_args());
  ASSERT_NE(server.port(), 0);

  CouchbaseSession subscriber(server.port());
  const auto features =
      subscriber.open({kXerror, kJson, kDuplex, kClustermapChangeNotification});
  ASSERT_EQ(features.size(), 4u);
  CouchbaseSession poller(server.port());
  poller.open({kXerror, kJson});
  CouchbaseSession admin(server.port());
  admin.open({kXerror, kJson});

  Response current = admin.call(simple(Opcode::GetClusterConfig));
  ASSERT_EQ(current.status, Status::Success);
  const int64_t epoch = json_integer(current.value, "revEpoch");
  const int64_t rev = json_integer(current.value, "rev");
  EXPECT_EQ(poller.call(simple(Opcode::GetClusterConfig)).value, current.value);

  const std::string newer = with_rev(current.value, rev + 1);
  ASSERT_EQ(json_integer(newer, "rev"), rev + 1);
  Request install = simple(Opcode::SetClusterConfig, kDefaultBucket, newer);
  install.datatype = kDatatypeJson;
  ASSERT_EQ(admin.call(install).status, Status::Success);

  // The subscriber is told, without asking.
  auto pushed = subscriber.receive();
  ASSERT_TRUE(pushed) << "no cluster map notification";
  EXPECT_EQ(pushed->magic, kServerRequestMagic);
  EXPECT_EQ(static_cast<uint8_t>(pushed->opcode), kClustermapChangeNotificationOpcode);
  EXPECT_EQ(pushed->key, kDefaultBucket);
  ASSERT_EQ(pushed->extras.size(), 16u);
  EXPECT_EQ(static_cast<int64_t>(read_be64(pushed->extras)), epoch);
  EXPECT_EQ(static_cast<int64_t>(read_be64(pushed->extras, 8)), rev + 1);
  EXPECT_EQ(pushed->value, newer);

  // Its answer (magic 0x83) is accepted, and the connection goes on.
  Request ack = simple(static_cast<Opcode>(kClustermapChangeNotificationOpcode));
  ack.magic = kServerResponseMagic;
  ack.opaque = pushed->opaque;
  ASSERT_TRUE(subscriber.send(ack));
  Response noop = subscriber.call(simple(Opcode::Noop));
  EXPECT_EQ(noop.magic, 0x81);
  EXPECT_EQ(noop.opcode, Opcode::Noop);
  EXPECT_EQ(noop.status, Status::Success);
  EXPECT_EQ(subscriber.call(store(Opcode::Set, "after-push", "v")).status, Status::Success);

  // The poller was sent nothing: its next answer is the one it asks for, with the new map.
  Response polled_noop = poller.call(simple(Opcode::Noop));
  EXPECT_EQ(polled_noop.magic, 0x81);
  EXPECT_EQ(polled_noop.opcode, Opcode::Noop);
  Response polled = poller.call(simple(Opcode::GetClusterConfig));
  ASSERT_EQ(polled.status, Status::Success);
  EXPECT_EQ(polled.value, newer);

  // A client that names the map it has gets an empty answer when that map is current, and
  // the map when it is not.
  Request known = simple(Opcode::GetClusterConfig);
  known.extras = be64(static_cast<uint64_t>(epoch)) + be64(static_cast<uint64_t>(rev + 1));
  Response current_answer = poller.call(known);
  EXPECT_EQ(current_answer.status, Status::Success);
  EXPECT_TRUE(current_answer.value.empty());
  known.extras = be64(static_cast<uint64_t>(epoch)) + be64(static_cast<uint64_t>(rev));
  EXPECT_EQ(poller.call(known).value, newer);

  // An older map is ignored, and nobody is told about it.
  Request older = simple(Opcode::SetClusterConfig, kDefaultBucket, current.value);
  older.datatype = kDatatypeJson;
  ASSERT_EQ(admin.call(older).status, Status::Success);
  EXPECT_EQ(admin.call(simple(Opcode::GetClusterConfig)).value, newer);
  Response next = subscriber.call(simple(Opcode::Noop));
  EXPECT_EQ(next.magic, 0x81) << "a notification for an ignored map";
  EXPECT_EQ(next.opcode, Opcode::Noop);
}

}  // namespace
}  // namespace tern::e2e
