// Collections at the dispatcher: the manifest and id lookups clients learn ids from, and
// document keys that carry a LEB128 collection id once Collections is negotiated. The
// secure node's "default" bucket has scope "app" (8) with "users" (8) and "orders" (9),
// manifest uid 2.
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
constexpr char kUnknownCollectionBody[] = R"({"manifest_uid":"2"})";

class CollectionsTest : public CommandsTest {
 protected:
  // A client as the SDKs are: XERROR, JSON and Collections, on bucket "default".
  Connection& sdk() {
    return connect_as("reader", "default", {Feature::Xerror, Feature::Json, Feature::Collections});
  }
  // A client that never negotiated Collections: its keys are the default collection's.
  Connection& legacy() { return connect_as("reader", "default", {Feature::Xerror}); }

  static Bytes lookup_extras(uint64_t manifest_uid, uint32_t id) {
    return concat({be64(manifest_uid), be32(id)});
  }
};

TEST_F(CollectionsTest, ManifestIsAnsweredAsJson) {
  const Response answer = sdk().one({.opcode = Opcode::GetCollectionsManifest});
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.datatype, kJsonDatatype);
  EXPECT_EQ(answer.value,
            R"({"uid":"2","scopes":[)"
            R"({"name":"_default","uid":"0","collections":[{"name":"_default","uid":"0"}]},)"
            R"({"name":"app","uid":"8","collections":[{"name":"users","uid":"8"},)"
            R"({"name":"orders","uid":"9"}]}]})");
}

TEST_F(CollectionsTest, CollectionIdIsLookedUpFromTheValueOrTheKey) {
  Connection& c = sdk();
  const Response by_value = c.one({.opcode = Opcode::GetCollectionId, .value = "app.users"});
  EXPECT_EQ(by_value.status, Status::Success);
  EXPECT_EQ(by_value.extras, lookup_extras(2, kUsers));
  EXPECT_TRUE(by_value.value.empty() && by_value.key.empty());
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionId, .key = "app.orders"}).extras,
            lookup_extras(2, kOrders));
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionId, .value = "_default._default"}).extras,
            lookup_extras(2, 0));
  // An empty part means _default.
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionId, .value = "."}).extras,
            lookup_extras(2, 0));
}

TEST_F(CollectionsTest, UnknownCollectionOrScopeCarriesTheManifestUid) {
  Connection& c = sdk();
  const Response collection = c.one({.opcode = Opcode::GetCollectionId, .value = "app.nope"});
  EXPECT_EQ(collection.status, Status::UnknownCollection);
  EXPECT_EQ(collection.value, kUnknownCollectionBody);
  EXPECT_EQ(collection.datatype, kJsonDatatype);
  EXPECT_TRUE(collection.extras.empty());
  const Response scope = c.one({.opcode = Opcode::GetCollectionId, .value = "nope.users"});
  EXPECT_EQ(scope.status, Status::UnknownScope);
  EXPECT_EQ(scope.value, kUnknownCollectionBody);
}

TEST_F(CollectionsTest, MalformedPathsAreEinval) {
  Connection& c = sdk();
  for (const char* path : {"users", "a.b.c", "app.us ers", ""}) {
    expect_error(c.one({.opcode = Opcode::GetCollectionId, .value = path}), Status::Einval);
  }
}

TEST_F(CollectionsTest, ScopeIdIsLookedUp) {
  Connection& c = sdk();
  const Response app = c.one({.opcode = Opcode::GetScopeId, .value = "app"});
  EXPECT_EQ(app.status, Status::Success);
  EXPECT_EQ(app.extras, lookup_extras(2, 8));
  EXPECT_EQ(c.one({.opcode = Opcode::GetScopeId, .key = "_default"}).extras,
            lookup_extras(2, 0));
  // A collection part after the scope is ignored, as in kv_engine.
  EXPECT_EQ(c.one({.opcode = Opcode::GetScopeId, .value = "app.whatever"}).extras,
            lookup_extras(2, 8));
  const Response unknown = c.one({.opcode = Opcode::GetScopeId, .value = "nope"});
  EXPECT_EQ(unknown.status, Status::UnknownScope);
  EXPECT_EQ(unknown.value, kUnknownCollectionBody);
}

TEST_F(CollectionsTest, ABucketWithoutCollectionsKnowsOnlyTheDefaultOne) {
  Connection& c = connect_as("Administrator", "other",
                             {Feature::Xerror, Feature::Json, Feature::Collections});
  const Response unknown = c.one({.opcode = Opcode::GetCollectionId, .value = "app.users"});
  EXPECT_EQ(unknown.status, Status::UnknownScope);
  EXPECT_EQ(unknown.value, R"({"manifest_uid":"0"})");
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionId, .value = "_default._default"}).extras,
            lookup_extras(0, 0));
  EXPECT_EQ(c.set(collection_key(kUsers, "k"), "v").status, Status::UnknownCollection);
}

TEST_F(CollectionsTest, KeyInAnUnknownCollectionIsUnknownCollection) {
  Connection& c = sdk();
  for (uint32_t id : {1u, 7u, 10u, 1000u}) {
    const Response answer = c.set(collection_key(id, "k"), "v");
    EXPECT_EQ(answer.status, Status::UnknownCollection) << id;
    EXPECT_EQ(answer.value, kUnknownCollectionBody);
    EXPECT_EQ(answer.datatype, kJsonDatatype);
    EXPECT_EQ(c.get(collection_key(id, "k")).status, Status::UnknownCollection);
  }
  EXPECT_EQ(bucket("default").documents().stats().curr_items, 0u);
}

TEST_F(CollectionsTest, NonCanonicalOrTruncatedPrefixIsEinval) {
  Connection& c = sdk();
  // 0x80 0x00 spells 0 in two bytes; only the one-byte form is canonical.
  expect_error(c.get(std::string("\x80\x00k", 3)), Status::Einval);
  expect_error(c.get(std::string("\x88\x80\x00k", 4)), Status::Einval);
  // A continuation bit with nothing after it.
  expect_error(c.get("\x80"), Status::Einval);
  // Six bytes of LEB128 cannot be a u32.
  expect_error(c.get("\x80\x80\x80\x80\x80\x01k"), Status::Einval);
  // A prefix and no key.
  expect_error(c.get(collection_key(kUsers, "")), Status::Einval);
  expect_error(c.get(collection_key(0, "")), Status::Einval);
}

TEST_F(CollectionsTest, KeyLengthLimitsDependOnTheCollection) {
  Connection& c = sdk();
  EXPECT_EQ(c.set(collection_key(0, std::string(250, 'd')), "v").status, Status::Success);
  expect_error(c.set(collection_key(0, std::string(251, 'd')), "v"), Status::Einval);
  EXPECT_EQ(c.set(collection_key(kUsers, std::string(246, 'u')), "v").status, Status::Success);
  expect_error(c.set(collection_key(kUsers, std::string(247, 'u')), "v"), Status::Einval);
  EXPECT_EQ(c.get(collection_key(kUsers, std::string(246, 'u'))).value, "v");
  // Without Collections the limit is memcached's 250 bytes.
  Connection& old = legacy();
  EXPECT_EQ(old.get(std::string(250, 'd')).value, "v");
  expect_error(old.get(std::string(251, 'd')), Status::Einval);
}

TEST_F(CollectionsTest, DocumentsOfACollectionAreNotSeenInAnother) {
  Connection& c = sdk();
  ASSERT_EQ(c.set(collection_key(kUsers, "doc"), "user").status, Status::Success);
  EXPECT_EQ(c.get(collection_key(0, "doc")).status, Status::KeyEnoent);
  EXPECT_EQ(c.get(collection_key(kOrders, "doc")).status, Status::KeyEnoent);
  ASSERT_EQ(c.set(collection_key(0, "doc"), "default").status, Status::Success);
  ASSERT_EQ(c.set(collection_key(kOrders, "doc"), "order").status, Status::Success);
  EXPECT_EQ(c.get(collection_key(kUsers, "doc")).value, "user");
  EXPECT_EQ(c.get(collection_key(0, "doc")).value, "default");
  EXPECT_EQ(c.get(collection_key(kOrders, "doc")).value, "order");
  EXPECT_EQ(c.one({.opcode = Opcode::Delete, .key = collection_key(kUsers, "doc")}).status,
            Status::Success);
  EXPECT_EQ(c.get(collection_key(0, "doc")).value, "default");
  EXPECT_EQ(c.get(collection_key(kOrders, "doc")).value, "order");
}

TEST_F(CollectionsTest, WithoutCollectionsKeysAreTheDefaultCollections) {
  Connection& c = sdk();
  Connection& old = legacy();
  ASSERT_EQ(old.set("doc", "plain").status, Status::Success);
  EXPECT_EQ(c.get(collection_key(0, "doc")).value, "plain");
  EXPECT_EQ(c.get(collection_key(kUsers, "doc")).status, Status::KeyEnoent);
  ASSERT_EQ(c.set(collection_key(kUsers, "only-users"), "u").status, Status::Success);
  EXPECT_EQ(old.get("only-users").status, Status::KeyEnoent);
}

// A default-collection key may begin with any byte, including one that spells another
// collection's id; it must not reach that collection's documents.
TEST_F(CollectionsTest, DefaultKeyThatLooksPrefixedStaysInTheDefaultCollection) {
  Connection& c = sdk();
  Connection& old = legacy();
  ASSERT_EQ(c.set(collection_key(kUsers, "doc"), "user").status, Status::Success);
  // "\x08doc" is an ordinary key to a client without Collections ...
  EXPECT_EQ(old.get(collection_key(kUsers, "doc")).status, Status::KeyEnoent);
  ASSERT_EQ(old.set(collection_key(kUsers, "doc"), "default").status, Status::Success);
  // ... and, to one with Collections, a default key spelled with its 0 prefix.
  EXPECT_EQ(c.get(collection_key(0, collection_key(kUsers, "doc"))).value, "default");
  EXPECT_EQ(c.get(collection_key(kUsers, "doc")).value, "user");
}

// GETK echoes the key as the client sent it, prefix included, in any collection (not the
// stored key, which is 0x00-escaped outside the default collection).
TEST_F(CollectionsTest, GetkEchoesTheKeyAsSent) {
  Connection& c = sdk();
  ASSERT_EQ(c.set(collection_key(kUsers, "doc"), "v").status, Status::Success);
  for (uint32_t id : {0u, kUsers}) {
    const Response answer = c.one({.opcode = Opcode::GetK, .key = collection_key(id, "doc")});
    EXPECT_EQ(answer.key, collection_key(id, "doc")) << id;
  }
}

// Scopes and collections changed while clients are connected (as the management port changes
// them): a created collection is usable at once, with no reconnect, and a dropped one answers
// UnknownCollection at once, with the new manifest uid.
TEST_F(CollectionsTest, ACreatedCollectionIsUsableAtOnceByAConnectedClient) {
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

TEST_F(CollectionsTest, ADroppedCollectionAnswersUnknownCollectionAtOnce) {
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

TEST_F(CollectionsTest, ADroppedScopeTakesItsCollections) {
  Connection& c = sdk();
  ASSERT_EQ(bucket("default").drop_scope("app").uid, 3u);
  EXPECT_EQ(c.set(collection_key(kOrders, "o"), "order").status, Status::UnknownCollection);
  EXPECT_EQ(c.one({.opcode = Opcode::GetScopeId, .value = "app"}).status, Status::UnknownScope);
  EXPECT_EQ(c.set(collection_key(0, "d"), "default").status, Status::Success);
}

}  // namespace
}  // namespace tern::commands
