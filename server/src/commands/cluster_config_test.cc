// GET_CLUSTER_CONFIG, which every SDK bootstraps from and polls, and SET_CLUSTER_CONFIG, with
// which an administrator installs the map clients route by.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cluster/cluster_map.h"
#include "commands/dispatcher_harness.h"

namespace tern::commands {
namespace {

using protocol::Opcode;
using protocol::Status;
using namespace testing;

class ClusterConfigTest : public CommandsTest {
 protected:
  ClusterConfigTest()
      : admin_(connect_as("Administrator", "default", {Feature::Xerror, Feature::Json})),
        client_(connect_as("reader", "default", {Feature::Xerror, Feature::Json})) {
    node_->set_cluster_map_listener(
        [this](engine::Bucket& changed) { pushed_.push_back(changed.name()); });
  }

  // A map of `bucket_name` as ternd builds one, at (epoch, rev).
  std::string map_json(int64_t epoch, int64_t rev, std::string_view bucket_name = "default") {
    cluster::SingleNodeParams params;
    params.bucket_name = std::string(bucket_name);
    params.bucket_uuid = bucket(bucket_name).uuid();
    params.rev_epoch = epoch;
    params.rev = rev;
    params.kv_port = 12000;
    params.collections = true;
    return cluster::ClusterMap::single_node(params).json();
  }

  Response install(const std::string& json, std::string bucket_name = {}) {
    return admin_.one({.opcode = Opcode::SetClusterConfig, .key = std::move(bucket_name),
                       .value = json, .datatype = kJsonDatatype});
  }

  Response get_config(Connection& c) { return c.one({.opcode = Opcode::GetClusterConfig}); }

  Response get_config_since(Connection& c, int64_t epoch, int64_t rev) {
    return c.one({.opcode = Opcode::GetClusterConfig,
                   .extras = concat({be64(static_cast<uint64_t>(epoch)),
                                     be64(static_cast<uint64_t>(rev))})});
  }

  Connection& admin_;
  Connection& client_;
  std::vector<std::string> pushed_;  // buckets whose new map the listener was told of
};

TEST_F(ClusterConfigTest, WithoutABucketIsNoBucket) {
  expect_error(get_config(connect_as("reader", "")), Status::NoBucket);
}

TEST_F(ClusterConfigTest, WithABucketAnswersItsMapAsJson) {
  const Response answer = get_config(client_);
  EXPECT_EQ(answer.status, Status::Success);
  EXPECT_EQ(answer.datatype, kJsonDatatype);
  EXPECT_EQ(answer.value, bucket("default").cluster_map()->json());
  EXPECT_NE(answer.value.find(R"("name":"default")"), std::string::npos);
  EXPECT_NE(answer.value.find(R"("rev":1)"), std::string::npos);
  EXPECT_TRUE(answer.extras.empty() && answer.key.empty());
  EXPECT_EQ(answer.cas, 0u);
  // Each bucket has its own.
  Connection& other = connect_as("Administrator", "other");
  EXPECT_EQ(get_config(other).value, bucket("other").cluster_map()->json());
  EXPECT_NE(get_config(other).value, answer.value);
}

TEST_F(ClusterConfigTest, AClientWithTheCurrentMapGetsAnEmptySuccess) {
  // The test map is epoch 1, rev 1.
  const Response current = get_config_since(client_, 1, 1);
  EXPECT_EQ(current.status, Status::Success);
  EXPECT_EQ(current.value, "");
  EXPECT_EQ(current.datatype, 0);
  // So does one that claims a newer map: there is nothing newer to give it.
  EXPECT_EQ(get_config_since(client_, 1, 2).value, "");
  EXPECT_EQ(get_config_since(client_, 2, 0).value, "");
}

TEST_F(ClusterConfigTest, AClientWithAnOlderMapGetsTheMap) {
  const std::string map = bucket("default").cluster_map()->json();
  EXPECT_EQ(get_config_since(client_, 1, 0).value, map);
  EXPECT_EQ(get_config_since(client_, 0, 99).value, map);
  EXPECT_EQ(get_config_since(client_, -1, -1).value, map);
}

TEST_F(ClusterConfigTest, ExtrasOfAnotherLengthAreEinval) {
  expect_error(client_.one({.opcode = Opcode::GetClusterConfig, .extras = be64(1)}),
               Status::Einval);
}

TEST_F(ClusterConfigTest, SetClusterConfigFromANonAdminIsEaccess) {
  const std::string newer = map_json(1, 5);
  expect_error(client_.one({.opcode = Opcode::SetClusterConfig, .value = newer,
                            .datatype = kJsonDatatype}),
               Status::Eaccess);
  EXPECT_NE(get_config(client_).value, newer);
  EXPECT_TRUE(pushed_.empty());
}

TEST_F(ClusterConfigTest, SetClusterConfigWithInvalidJsonIsEinval) {
  const std::string before = bucket("default").cluster_map()->json();
  for (const std::string& bad :
       {std::string("{"), std::string("not json"), std::string(""), std::string("[]"),
        std::string(R"({"rev":2})"),                                      // no vBucketServerMap
        std::string(R"({"rev":"2","vBucketServerMap":{"vBucketMap":[[0]]}})"),  // rev not int
        std::string(R"({"rev":2,"vBucketServerMap":{"vBucketMap":[[0],[0],[0]]}})"),
        // A valid map but with 4 vbuckets: a bucket has 1024.
        std::string(R"({"rev":2,"vBucketServerMap":{"vBucketMap":[[0],[0],[0],[0]]}})")}) {
    expect_error(install(bad), Status::Einval);
  }
  EXPECT_EQ(get_config(client_).value, before);
  EXPECT_TRUE(pushed_.empty());
}

TEST_F(ClusterConfigTest, ANewerMapIsServedFromThenOn) {
  const std::string newer = map_json(1, 2);
  const Response installed = install(newer);
  EXPECT_EQ(installed.status, Status::Success);
  EXPECT_TRUE(installed.value.empty());
  EXPECT_EQ(get_config(client_).value, newer);
  EXPECT_EQ(get_config_since(client_, 1, 1).value, newer);
  EXPECT_EQ(get_config_since(client_, 1, 2).value, "");
  EXPECT_EQ(pushed_, std::vector<std::string>{"default"});
  // NotMyVbucket answers carry it too.
  EXPECT_EQ(client_.one({.opcode = Opcode::Get, .key = "k", .vbucket = 1024}).value, newer);
  // A new epoch beats any rev of the old one.
  const std::string next_epoch = map_json(2, 1);
  EXPECT_EQ(install(next_epoch).status, Status::Success);
  EXPECT_EQ(get_config(client_).value, next_epoch);
}

// As kv_engine: a late delivery must not undo a newer decision, and is not an error.
TEST_F(ClusterConfigTest, AnOlderMapIsIgnoredButStillSuccess) {
  const std::string current = map_json(2, 7);
  ASSERT_EQ(install(current).status, Status::Success);
  pushed_.clear();
  EXPECT_EQ(install(map_json(2, 6)).status, Status::Success);
  EXPECT_EQ(install(map_json(1, 100)).status, Status::Success);
  EXPECT_EQ(get_config(client_).value, current);
  EXPECT_TRUE(pushed_.empty());
}

TEST_F(ClusterConfigTest, SetClusterConfigMayNameAnotherBucket) {
  const std::string map = map_json(1, 3, "other");
  EXPECT_EQ(install(map, "other").status, Status::Success);
  EXPECT_EQ(bucket("other").cluster_map()->json(), map);
  EXPECT_NE(bucket("default").cluster_map()->json(), map);
  EXPECT_EQ(pushed_, std::vector<std::string>{"other"});
  expect_error(install(map, "nonesuch"), Status::KeyEnoent);
}

TEST_F(ClusterConfigTest, SetClusterConfigWithoutABucketIsNoBucket) {
  Connection& admin_none = connect_as("Administrator", "");
  expect_error(admin_none.one({.opcode = Opcode::SetClusterConfig, .value = map_json(1, 2),
                               .datatype = kJsonDatatype}),
               Status::NoBucket);
}

}  // namespace
}  // namespace tern::commands
