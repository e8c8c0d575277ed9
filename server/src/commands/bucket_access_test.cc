// Who may use what: the access rules of command_table.cc and SELECT_BUCKET's grants, on a
// node with users (as with a config file) and on an open node (as without one).
#include <gtest/gtest.h>

#include <string>

#include "commands/dispatcher_harness.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

class BucketAccessTest : public CommandsTest {
 protected:
  Connection& anonymous() {
    Connection& c = connect();
    c.hello({Feature::Xerror, Feature::Json});
    return c;
  }
};

TEST_F(BucketAccessTest, UnauthenticatedDataCommandsAreEaccess) {
  Connection& c = anonymous();
  expect_error(c.get("k"), Status::Eaccess);
  expect_error(c.set("k", "v"), Status::Eaccess);
  expect_error(c.one({.opcode = Opcode::GetCollectionsManifest}), Status::Eaccess);
  expect_error(c.one({.opcode = Opcode::GetClusterConfig}), Status::Eaccess);
  expect_error(c.one({.opcode = Opcode::Stat}), Status::Eaccess);
  expect_error(c.select_bucket("default"), Status::Eaccess);
  expect_error(c.one({.opcode = Opcode::GetVbucket}), Status::Eaccess);
}

TEST_F(BucketAccessTest, BootstrapCommandsNeedNoAuthentication) {
  Connection& c = anonymous();
  EXPECT_EQ(c.one({.opcode = Opcode::Noop}).status, Status::Success);
  EXPECT_EQ(c.one({.opcode = Opcode::Version}).status, Status::Success);
  EXPECT_EQ(c.one({.opcode = Opcode::SaslListMechs}).status, Status::Success);
  EXPECT_EQ(c.one({.opcode = Opcode::GetErrorMap, .value = text_of(be16(2))}).status,
            Status::Success);
}

TEST_F(BucketAccessTest, AuthenticatedWithoutABucketDataCommandsAreNoBucket) {
  Connection& c = connect_as("reader", "");
  expect_error(c.get("k"), Status::NoBucket);
  expect_error(c.set("k", "v"), Status::NoBucket);
  expect_error(c.one({.opcode = Opcode::GetCollectionsManifest}), Status::NoBucket);
  expect_error(c.one({.opcode = Opcode::ObserveSeqno, .value = text_of(be64(1))}),
               Status::NoBucket);
  expect_error(c.one({.opcode = Opcode::Flush}), Status::NoBucket);
  expect_error(c.one({.opcode = Opcode::GetClusterConfig}), Status::NoBucket);
  // What needs no bucket still works.
  EXPECT_EQ(c.one({.opcode = Opcode::Noop}).status, Status::Success);
}

TEST_F(BucketAccessTest, SelectingAGrantedBucketLetsDataCommandsRun) {
  Connection& c = connect_as("reader", "");
  const Response selected = c.select_bucket("default");
  EXPECT_EQ(selected.status, Status::Success);
  EXPECT_TRUE(selected.value.empty() && selected.extras.empty() && selected.key.empty());
  EXPECT_EQ(c.session().bucket.get(), &bucket("default"));
  EXPECT_EQ(c.set("k", "v").status, Status::Success);
  EXPECT_EQ(c.get("k").value, "v");
}

// Couchbase does not tell a bucket that does not exist from one the user may not use.
TEST_F(BucketAccessTest, UnknownOrNotGrantedBucketIsEaccess) {
  Connection& c = connect_as("reader", "");
  expect_error(c.select_bucket("nonesuch"), Status::Eaccess);
  expect_error(c.select_bucket("other"), Status::Eaccess);
  expect_error(c.select_bucket(""), Status::Eaccess);
  EXPECT_EQ(c.session().bucket, nullptr);
  expect_error(c.get("k"), Status::NoBucket);
}

TEST_F(BucketAccessTest, AnAdministratorMaySelectEveryBucket) {
  Connection& c = connect_as("Administrator", "");
  EXPECT_EQ(c.select_bucket("other").status, Status::Success);
  EXPECT_EQ(c.select_bucket("default").status, Status::Success);
  expect_error(c.select_bucket("nonesuch"), Status::Eaccess);
}

TEST_F(BucketAccessTest, BucketsKeepTheirOwnDocuments) {
  Connection& admin_default = connect_as("Administrator", "default");
  Connection& admin_other = connect_as("Administrator", "other");
  ASSERT_EQ(admin_default.set("k", "in default").status, Status::Success);
  EXPECT_EQ(admin_other.get("k").status, Status::KeyEnoent);
  ASSERT_EQ(admin_other.set("k", "in other").status, Status::Success);
  EXPECT_EQ(admin_default.get("k").value, "in default");
  EXPECT_EQ(admin_other.get("k").value, "in other");
}

TEST_F(BucketAccessTest, BucketNameOverTheKeyLimitIsEinval) {
  Connection& c = connect_as("Administrator", "");
  expect_error(c.select_bucket(std::string(300, 'b')), Status::Einval);
  EXPECT_EQ(c.session().bucket, nullptr);
}

TEST_F(BucketAccessTest, AnonymousBucketIsTheOnlyOneUnauthenticatedClientsMayUse) {
  use_secure_node(secure_settings(false, "other"));
  Connection& c = anonymous();
  EXPECT_EQ(c.session().bucket.get(), &bucket("other"));
  EXPECT_EQ(c.set("k", "v").status, Status::Success);
  EXPECT_EQ(c.get("k").value, "v");
  EXPECT_EQ(bucket("other").documents().stats().curr_items, 1u);
  EXPECT_EQ(bucket("default").documents().stats().curr_items, 0u);
  EXPECT_EQ(c.one({.opcode = Opcode::GetClusterConfig}).status, Status::Success);
  expect_error(c.select_bucket("default"), Status::Eaccess);
  EXPECT_EQ(c.select_bucket("other").status, Status::Success);
  // Anonymous is not an administrator.
  expect_error(c.one({.opcode = Opcode::GetVbucket}), Status::Eaccess);
  // Authenticating leaves the anonymous bucket, and the user's grants apply.
  ASSERT_EQ(c.authenticate("reader", "password").status, Status::Success);
  expect_error(c.get("k"), Status::NoBucket);
  EXPECT_EQ(c.select_bucket("default").status, Status::Success);
}

TEST_F(BucketAccessTest, WithoutAnAnonymousBucketNewConnectionsHaveNone) {
  EXPECT_EQ(anonymous().session().bucket, nullptr);
}

// Without a config file ternd is memcached: no authentication, one bucket, every command.
TEST_F(BucketAccessTest, OpenNodeServesEveryoneWithoutAuthentication) {
  use_open_node();
  Connection& c = connect();
  EXPECT_TRUE(c.session().authenticated());
  EXPECT_EQ(c.set("k", "v").status, Status::Success);
  EXPECT_EQ(c.get("k").value, "v");
  EXPECT_EQ(c.one({.opcode = Opcode::GetClusterConfig}).status, Status::Success);
  EXPECT_EQ(c.one({.opcode = Opcode::GetCollectionsManifest}).status, Status::Success);
  EXPECT_GT(c.run({.opcode = Opcode::Stat}).size(), 1u);
  EXPECT_EQ(c.select_bucket("default").status, Status::Success);
  expect_error(c.select_bucket("nonesuch"), Status::Eaccess);
  // A HELLO (as the SDKs send) changes nothing about access.
  Connection& sdk = connect();
  sdk.hello({Feature::Xerror, Feature::SelectBucket});
  EXPECT_EQ(sdk.get("k").value, "v");
}

TEST_F(BucketAccessTest, ClusterControlIsForAdministratorsOnly) {
  Connection& reader = connect_as("reader", "default");
  const Request set_vbucket{.opcode = Opcode::SetVbucket, .extras = {1}, .vbucket = 3};
  expect_error(reader.one(set_vbucket), Status::Eaccess);
  expect_error(reader.one({.opcode = Opcode::GetVbucket, .vbucket = 3}), Status::Eaccess);
  expect_error(reader.one({.opcode = Opcode::SetClusterConfig, .value = "{}"}), Status::Eaccess);
  Connection& admin = connect_as("Administrator", "default");
  EXPECT_EQ(admin.one(set_vbucket).status, Status::Success);
  EXPECT_EQ(admin.one({.opcode = Opcode::GetVbucket, .vbucket = 3}).value, text_of(be32(1)));
}

// What an official SDK sends on a connection that opens a bucket, in its order.
TEST_F(BucketAccessTest, SdkBootstrapSequenceSucceeds) {
  Connection& c = connect();
  EXPECT_EQ(c.hello_codes({0x03, 0x04, 0x07, 0x08, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
                           0x11, 0x12, 0x14}).status,
            Status::Success);
  EXPECT_EQ(c.one({.opcode = Opcode::SaslListMechs}).status, Status::Success);
  EXPECT_EQ(c.authenticate("Administrator", "password").status, Status::Success);
  const Response error_map = c.one({.opcode = Opcode::GetErrorMap, .value = text_of(be16(2))});
  EXPECT_EQ(error_map.status, Status::Success);
  EXPECT_EQ(error_map.datatype, kJsonDatatype);
  EXPECT_EQ(c.select_bucket("default").status, Status::Success);
  const Response map = c.one({.opcode = Opcode::GetClusterConfig});
  EXPECT_EQ(map.status, Status::Success);
  EXPECT_EQ(map.datatype, kJsonDatatype);
  EXPECT_EQ(map.value, bucket("default").cluster_map()->json());
  // Keys now carry their collection: 0 is the default one.
  EXPECT_EQ(c.set(collection_key(0, "k"), "v").status, Status::Success);
}

}  // namespace
}  // namespace tern::commands
