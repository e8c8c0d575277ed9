#include "cluster/cluster_map.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tern::cluster {
namespace {

rapidjson::Document parse_json(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  if (doc.HasParseError()) throw std::runtime_error("bad JSON: " + text);
  return doc;
}

std::vector<std::string> strings(const rapidjson::Value& array) {
  std::vector<std::string> out;
  for (const auto& item : array.GetArray()) out.emplace_back(item.GetString());
  return out;
}

SingleNodeParams params(bool collections) {
  SingleNodeParams p;
  p.bucket_name = "travel-sample";
  p.bucket_uuid = "0123456789abcdef0123456789abcdef";
  p.kv_port = 41210;
  p.rev_epoch = 3;
  p.rev = 17;
  p.collections_manifest_uid = 0x2a;
  p.collections = collections;
  return p;
}

TEST(ClusterMap, SingleNodeFieldByField) {
  const ClusterMap map = ClusterMap::single_node(params(true));
  EXPECT_EQ(map.epoch(), 3);
  EXPECT_EQ(map.rev(), 17);
  EXPECT_EQ(map.vbucket_count(), 1024u);
  const rapidjson::Document doc = parse_json(map.json());
  ASSERT_TRUE(doc.IsObject());

  EXPECT_EQ(doc["rev"].GetInt64(), 17);
  EXPECT_EQ(doc["revEpoch"].GetInt64(), 3);
  EXPECT_STREQ(doc["name"].GetString(), "travel-sample");
  EXPECT_STREQ(doc["uuid"].GetString(), "0123456789abcdef0123456789abcdef");
  EXPECT_STREQ(doc["nodeLocator"].GetString(), "vbucket");
  EXPECT_STREQ(doc["bucketCapabilitiesVer"].GetString(), "");
  EXPECT_EQ(strings(doc["bucketCapabilities"]),
            (std::vector<std::string>{"cccp", "nodesExt", "touch", "cbhello", "collections",
                                      "durableWrite", "xattr", "subdoc.AccessDeleted",
                                      "subdoc.ReplicaRead", "subdoc.ReplaceBodyWithXattr",
                                      "subdoc.ReviveDocument", "rangeScan"}));
  EXPECT_STREQ(doc["collectionsManifestUid"].GetString(), "2a");

  const auto& nodes = doc["nodes"];
  ASSERT_EQ(nodes.Size(), 1u);
  EXPECT_STREQ(nodes[0]["hostname"].GetString(), "$HOST:8091");
  EXPECT_EQ(nodes[0]["ports"]["direct"].GetInt(), 41210);

  const auto& nodes_ext = doc["nodesExt"];
  ASSERT_EQ(nodes_ext.Size(), 1u);
  EXPECT_STREQ(nodes_ext[0]["hostname"].GetString(), "$HOST");
  EXPECT_TRUE(nodes_ext[0]["thisNode"].GetBool());
  const auto& services = nodes_ext[0]["services"];
  EXPECT_EQ(services.MemberCount(), 1u);  // kv only: no mgmt
  EXPECT_EQ(services["kv"].GetInt(), 41210);

  const auto& server_map = doc["vBucketServerMap"];
  EXPECT_STREQ(server_map["hashAlgorithm"].GetString(), "CRC");
  EXPECT_EQ(server_map["numReplicas"].GetInt(), 0);
  EXPECT_EQ(strings(server_map["serverList"]), std::vector<std::string>{"$HOST:41210"});
  const auto& vbuckets = server_map["vBucketMap"];
  ASSERT_EQ(vbuckets.Size(), 1024u);
  for (const auto& row : vbuckets.GetArray()) {
    ASSERT_EQ(row.Size(), 1u);
    ASSERT_EQ(row[0].GetInt(), 0);
  }

  const auto& version = doc["clusterCapabilitiesVer"];
  ASSERT_EQ(version.Size(), 2u);
  EXPECT_EQ(version[0].GetInt(), 1);
  EXPECT_EQ(version[1].GetInt(), 0);
  EXPECT_TRUE(doc["clusterCapabilities"].IsObject());
  EXPECT_EQ(doc["clusterCapabilities"].MemberCount(), 0u);

  EXPECT_EQ(map.active_index_per_vbucket(), std::vector<int>(1024, 0));
}

TEST(ClusterMap, ListsTheManagementAndTlsPortsThatAreOpen) {
  SingleNodeParams p = params(true);
  p.mgmt_port = 48091;
  p.tls = {.kv = 41207, .mgmt = 48092};
  for (const ClusterMap& map : {ClusterMap::single_node(p), ClusterMap::global(p)}) {
    const rapidjson::Document doc = parse_json(map.json());
    const auto& services = doc["nodesExt"][0]["services"];
    EXPECT_EQ(services.MemberCount(), 4u);
    EXPECT_EQ(services["kv"].GetInt(), 41210);
    EXPECT_EQ(services["mgmt"].GetInt(), 48091);
    EXPECT_EQ(services["kvSSL"].GetInt(), 41207);
    EXPECT_EQ(services["mgmtSSL"].GetInt(), 48092);
  }
  // Each TLS port on its own: one that is off is not listed.
  p.tls = {.kv = 41207, .mgmt = std::nullopt};
  const rapidjson::Document kv_only = parse_json(ClusterMap::single_node(p).json());
  EXPECT_TRUE(kv_only["nodesExt"][0]["services"].HasMember("kvSSL"));
  EXPECT_FALSE(kv_only["nodesExt"][0]["services"].HasMember("mgmtSSL"));
}

TEST(ClusterMap, SingleNodeWithoutCollections) {
  const ClusterMap map = ClusterMap::single_node(params(false));
  const rapidjson::Document doc = parse_json(map.json());
  const std::vector<std::string> capabilities = strings(doc["bucketCapabilities"]);
  EXPECT_EQ(capabilities,
            (std::vector<std::string>{"cccp", "nodesExt", "touch", "cbhello", "durableWrite",
                                      "xattr", "subdoc.AccessDeleted", "subdoc.ReplicaRead",
                                      "subdoc.ReplaceBodyWithXattr", "subdoc.ReviveDocument",
                                      "rangeScan"}));
}

TEST(ClusterMap, SingleNodeOtherVBucketCounts) {
  SingleNodeParams p = params(false);
  p.vbucket_count = 64;
  const ClusterMap map = ClusterMap::single_node(p);
  EXPECT_EQ(map.vbucket_count(), 64u);
  EXPECT_EQ(parse_json(map.json())["vBucketServerMap"]["vBucketMap"].Size(), 64u);
  p.vbucket_count = 1000;
  EXPECT_THROW(ClusterMap::single_node(p), std::invalid_argument);
  p.vbucket_count = 0;
  EXPECT_THROW(ClusterMap::single_node(p), std::invalid_argument);
}

TEST(ClusterMap, SingleNodeParsesBack) {
  const ClusterMap map = ClusterMap::single_node(params(true));
  std::string error;
  const auto parsed = ClusterMap::parse(map.json(), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->epoch(), 3);
  EXPECT_EQ(parsed->rev(), 17);
  EXPECT_EQ(parsed->json(), map.json());
}

TEST(ClusterMap, NewerThanOrdersByEpochThenRev) {
  const ClusterMap map = ClusterMap::single_node(params(false));  // (3, 17)
  EXPECT_TRUE(map.newer_than(3, 16));
  EXPECT_FALSE(map.newer_than(3, 17));
  EXPECT_FALSE(map.newer_than(3, 18));
  EXPECT_TRUE(map.newer_than(2, 1000));
  EXPECT_FALSE(map.newer_than(4, 0));
  EXPECT_TRUE(map.newer_than(-1, -1));  // what a client with no map sends
}

struct ParseVector {
  std::string name;
  std::string json;
  bool ok;
  int64_t epoch = 0;
  int64_t rev = 0;
};

TEST(ClusterMap, Parse) {
  const std::string four = R"("vBucketServerMap":{"vBucketMap":[[0],[1],[0,1],[-1]]})";
  const std::vector<ParseVector> vectors = {
      {"minimal", "{\"rev\":5," + four + "}", true, 0, 5},
      {"with epoch", "{\"rev\":5,\"revEpoch\":2," + four + "}", true, 2, 5},
      {"big rev", "{\"rev\":9007199254740993," + four + "}", true, 0, 9007199254740993},
      {"not JSON", "{\"rev\":", false},
      {"not an object", "[1,2]", false},
      {"no rev", "{" + four + "}", false},
      {"string rev", "{\"rev\":\"5\"," + four + "}", false},
      {"fractional rev", "{\"rev\":5.5," + four + "}", false},
      {"string epoch", "{\"rev\":5,\"revEpoch\":\"1\"," + four + "}", false},
      {"no server map", R"({"rev":5})", false},
      {"no vbucket map", R"({"rev":5,"vBucketServerMap":{}})", false},
      {"vbucket map not array", R"({"rev":5,"vBucketServerMap":{"vBucketMap":{}}})", false},
      {"empty vbucket map", R"({"rev":5,"vBucketServerMap":{"vBucketMap":[]}})", false},
      {"three vbuckets", R"({"rev":5,"vBucketServerMap":{"vBucketMap":[[0],[0],[0]]}})", false},
  };
  for (const ParseVector& v : vectors) {
    std::string error;
    const auto map = ClusterMap::parse(v.json, error);
    ASSERT_EQ(map.has_value(), v.ok) << v.name << ": " << error;
    if (!map) {
      EXPECT_FALSE(error.empty()) << v.name;
      continue;
    }
    EXPECT_EQ(map->epoch(), v.epoch) << v.name;
    EXPECT_EQ(map->rev(), v.rev) << v.name;
    EXPECT_EQ(map->json(), v.json) << v.name;  // kept verbatim
    EXPECT_EQ(map->vbucket_count(), 4u) << v.name;
    EXPECT_EQ(map->active_index_per_vbucket(), (std::vector<int>{0, 1, 0, -1})) << v.name;
  }
}

TEST(ClusterMap, ActiveIndexUnknownForOddRows) {
  std::string error;
  const auto map =
      ClusterMap::parse(R"({"rev":1,"vBucketServerMap":{"vBucketMap":[[0],[]]}})", error);
  ASSERT_TRUE(map) << error;
  EXPECT_EQ(map->active_index_per_vbucket(), std::nullopt);
}

}  // namespace
}  // namespace tern::cluster
