// Scopes and collections changed while clients are connected (as the management port changes
// them): a created collection is usable at once, with no reconnect, and a dropped one answers
// UnknownCollection at once, with the new manifest uid. The secure node's "default" bucket
// starts with scope "app" (8) holding "users" (8) and "orders" (9), manifest uid 2.
#include <gtest/gtest.h>

#include <string>

#include "commands/dispatcher_harness.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

constexpr uint32_t kUsers = 8;
constexpr uint32_t kOrders = 9;

class LiveCollectionsTest : public CommandsTest {
 protected:
  Connection& sdk() {
    return connect_as("reader", "default", {Feature::Xerror, Feature::Json, Feature::Collections});
  }
};

TEST_F(LiveCollectionsTest, ACreatedCollectionIsUsableAtOnceByAConnectedClient) {
  Connection& c = sdk();
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionId, .value = "app.events"}).status,
            Status::UnknownCollection);
  ASSERT_EQ(bucket("default").create_collection("app", "events", std::nullopt).uid, 3u);

  const Response id = c.one({.opcode = Opcode::GetCollectionId, .value = "app.events"});
  ASSERT_EQ(id.status, Status::Success);
  EXPECT_EQ(id.extras, concat({be64(3), be32(10)}));  // uid 3, the next id after orders
  EXPECT_EQ(c.set(collection_key(10, "e"), "event").status, Status::Success);
  EXPECT_EQ(c.get(collection_key(10, "e")).value, "event");
  const Response manifest = c.one({.opcode = Opcode::GetCollectionsManifest});
  EXPECT_NE(manifest.value.find(R"({"name":"events","uid":"a"})"), std::string::npos)
      << manifest.value;
  EXPECT_NE(manifest.value.find(R"("uid":"3")"), std::string::npos) << manifest.value;
}

TEST_F(LiveCollectionsTest, ADroppedCollectionAnswersUnknownCollectionAtOnce) {
  Connection& c = sdk();
  ASSERT_EQ(c.set(collection_key(kUsers, "u"), "user").status, Status::Success);
  ASSERT_EQ(c.set(collection_key(kOrders, "o"), "order").status, Status::Success);
  ASSERT_EQ(bucket("default").drop_collection("app", "users").uid, 3u);

  for (const Response& answer :
       {c.get(collection_key(kUsers, "u")), c.set(collection_key(kUsers, "u"), "again")}) {
    EXPECT_EQ(answer.status, Status::UnknownCollection);
    EXPECT_EQ(answer.value, R"({"manifest_uid":"3"})");
  }
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionId, .value = "app.users"}).status,
            Status::UnknownCollection);
  EXPECT_EQ(c.get(collection_key(kOrders, "o")).value, "order");

  // The same name again: a new collection, empty, with a new id.
  ASSERT_EQ(bucket("default").create_collection("app", "users", std::nullopt).uid, 4u);
  const Response id = c.one({.opcode = Opcode::GetCollectionId, .value = "app.users"});
  ASSERT_EQ(id.status, Status::Success);
  EXPECT_EQ(id.extras, concat({be64(4), be32(10)}));
  EXPECT_EQ(c.get(collection_key(10, "u")).status, Status::KeyEnoent);
  EXPECT_EQ(c.get(collection_key(kUsers, "u")).status, Status::UnknownCollection);
}

TEST_F(LiveCollectionsTest, ADroppedScopeTakesItsCollections) {
  Connection& c = sdk();
  ASSERT_EQ(bucket("default").drop_scope("app").uid, 3u);
  EXPECT_EQ(c.set(collection_key(kOrders, "o"), "order").status, Status::UnknownCollection);
  EXPECT_EQ(c.one({.opcode = Opcode::GetScopeId, .value = "app"}).status, Status::UnknownScope);
  EXPECT_EQ(c.set(collection_key(0, "d"), "default").status, Status::Success);
}

}  // namespace
}  // namespace tern::commands
