#pragma once
// What every connection of this node shares: its buckets, its users and the rules for who
// may use what. Built once at start-up (from the config file, or as a plain memcached-style
// node without one) and read-only afterwards, except for what the buckets themselves guard.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/user.h"
#include "common/clock.h"
#include "engine/bucket.h"

namespace tern::commands {

struct NodeSettings {
  // Without a config file ternd is a memcached-style server: every connection starts
  // authenticated, on the first bucket, as memcached clients expect.
  bool open_access = true;
  bool allow_plain_auth = false;
  // A bucket unauthenticated connections use (a config's anonymous_bucket); empty for none.
  std::string anonymous_bucket;
  std::string version = "1.0.0-tern";
  // The largest value a request may carry, after decompression too.
  size_t max_item_size = 20ull * 1024 * 1024;
};

class Node {
 public:
  // `buckets` must not be empty.
  Node(NodeSettings settings, std::vector<std::unique_ptr<engine::Bucket>> buckets,
       auth::UserDirectory users, const Clock& clock = SystemClock::instance());
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const NodeSettings& settings() const { return settings_; }
  const auth::UserDirectory& users() const { return users_; }
  const Clock& clock() const { return clock_; }

  // The bucket with this name, or nullptr.
  engine::Bucket* find_bucket(std::string_view name) const;
  const std::vector<std::unique_ptr<engine::Bucket>>& buckets() const { return buckets_; }

  // The bucket a new connection starts on: the first one when access is open, the anonymous
  // bucket if there is one, else none.
  engine::Bucket* initial_bucket() const;

  // Installs `map` on `bucket` (if not older than its current one) and, if it was installed,
  // tells the listener so that subscribed clients get it pushed. Returns whether installed.
  bool install_cluster_map(engine::Bucket& bucket, cluster::ClusterMap map);

  // Called after each installed map; set once, before serving.
  void set_cluster_map_listener(std::function<void(engine::Bucket&)> listener);

 private:
  const NodeSettings settings_;
  const std::vector<std::unique_ptr<engine::Bucket>> buckets_;
  const auth::UserDirectory users_;
  const Clock& clock_;
  std::function<void(engine::Bucket&)> map_listener_;
};

}  // namespace tern::commands
