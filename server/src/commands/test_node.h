#pragma once
// Nodes for tests of the commands and the layers above them, built as ternd builds them.

#include <memory>
#include <string>
#include <vector>

#include "auth/scram.h"
#include "auth/scram_algorithm.h"
#include "cluster/cluster_map.h"
#include "commands/node.h"

namespace tern::commands::testing {

inline void install_test_map(Node& node, engine::Bucket& bucket, int64_t rev = 1) {
  cluster::SingleNodeParams params;
  params.bucket_name = bucket.name();
  params.bucket_uuid = bucket.uuid();
  params.rev = rev;
  params.collections_manifest_uid = bucket.manifest().uid();
  params.collections = true;
  node.install_cluster_map(bucket, cluster::ClusterMap::single_node(params));
}

// As ternd without a config file: one bucket, "default", open to every client.
inline std::unique_ptr<Node> make_open_node(const Clock& clock = SystemClock::instance(),
                                            engine::Config config = {}) {
  std::vector<std::unique_ptr<engine::Bucket>> buckets;
  buckets.push_back(std::make_unique<engine::Bucket>(
      "default", config, cluster::CollectionsManifest::default_only(), 1, clock));
  auto node = std::make_unique<Node>(NodeSettings{}, std::move(buckets), auth::UserDirectory{},
                                     clock);
  install_test_map(*node, *node->buckets().front());
  return node;
}

inline auth::User test_user(std::string name, const std::string& password,
                            std::vector<std::string> buckets, bool admin) {
  auth::User user{.name = std::move(name), .credentials = {}, .buckets = std::move(buckets), .admin = admin};
  for (auth::ScramAlgorithm algorithm : auth::kScramAlgorithmsStrongestFirst) {
    user.credentials.push_back(
        auth::derive_credential(algorithm, password, auth::random_salt(algorithm), 4096));
  }
  return user;
}

// As ternd with a config file: buckets "default" (scope "app" with collections "users" = 8
// and "orders" = 9, manifest uid 2) and "other"; users "Administrator" (admin, every
// bucket) and "reader" (bucket "default" only), both with password "password".
inline std::unique_ptr<Node> make_secure_node(const Clock& clock = SystemClock::instance(),
                                              NodeSettings settings = {.open_access = false}) {
  std::vector<std::unique_ptr<engine::Bucket>> buckets;
  cluster::CollectionsManifest manifest(
      2, {{"_default", 0, {{"_default", 0}}}, {"app", 8, {{"users", 8}, {"orders", 9}}}});
  buckets.push_back(
      std::make_unique<engine::Bucket>("default", engine::Config{}, manifest, 1, clock));
  buckets.push_back(std::make_unique<engine::Bucket>(
      "other", engine::Config{}, cluster::CollectionsManifest::default_only(), 2, clock));
  auth::UserDirectory users;
  users.add(test_user("Administrator", "password", {"*"}, true));
  users.add(test_user("reader", "password", {"default"}, false));
  auto node = std::make_unique<Node>(std::move(settings), std::move(buckets), std::move(users),
                                     clock);
  for (const auto& bucket : node->buckets()) install_test_map(*node, *bucket);
  return node;
}

}  // namespace tern::commands::testing
