#pragma once
// What every connection of this node shares: its buckets, its users and the rules for who
// may use what. Built at start-up (from the config file, or as a plain memcached-style node
// without one). Settings and users are read-only afterwards; the set of buckets is the one
// live part: the management port adds and drops buckets while connections use them.
//
// Bucket lifetime: the node and every session that selected a bucket share it
// (std::shared_ptr). Dropping a bucket takes it out of the node and marks it dropped; a
// connection on it closes at its next request (as Couchbase closes them), and the bucket is
// destroyed when the last holder lets go.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "auth/user.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "engine/bucket.h"
#include "executor/executor.h"
#include "scan/scan_registry.h"

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
  // Range scans per bucket, and how long one may sit unused before it is cancelled.
  scan::RegistryLimits range_scans = {};
};

class Node {
 public:
  Node(NodeSettings settings, std::vector<std::unique_ptr<engine::Bucket>> buckets,
       auth::UserDirectory users, const Clock& clock = SystemClock::instance());
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const NodeSettings& settings() const { return settings_; }
  const auth::UserDirectory& users() const { return users_; }
  const Clock& clock() const { return clock_; }

  // The bucket with this name, or null. Thread-safe.
  std::shared_ptr<engine::Bucket> find_bucket(std::string_view name) const;

  // Every bucket, in the order added. A copy: buckets may come and go meanwhile.
  std::vector<std::shared_ptr<engine::Bucket>> buckets() const;

  // Adds a bucket; false (and nothing changes) if one has its name. Thread-safe.
  bool add_bucket(std::shared_ptr<engine::Bucket> bucket);

  // Takes the bucket out and marks it dropped (engine::Bucket::mark_dropped); null if there is
  // none of that name. The caller stops its tasks and removes its files. Thread-safe.
  std::shared_ptr<engine::Bucket> remove_bucket(std::string_view name);

  // The bucket a new connection starts on: the first one when access is open, the anonymous
  // bucket if there is one, else none.
  std::shared_ptr<engine::Bucket> initial_bucket() const;

  // Installs `map` on `bucket` (if not older than its current one) and, if it was installed,
  // tells the listener so that subscribed clients get it pushed. Returns whether installed.
  bool install_cluster_map(engine::Bucket& bucket, cluster::ClusterMap map);

  // The node's map without a bucket (cluster::ClusterMap::global), for connections that
  // selected none; null until set. Thread-safe.
  void set_global_map(cluster::ClusterMap map);
  std::shared_ptr<const cluster::ClusterMap> global_map() const;

  // Called after each installed map; set once, before serving.
  void set_cluster_map_listener(std::function<void(engine::Bucket&)> listener);

  // Range scans (commands/range_scan.cc): the node's scans, and the executor their creates
  // and continues run on (null until start_range_scans(); range scans answer NotSupported
  // until then). start_range_scans() also starts the task that cancels idle scans; call it
  // once, before serving. The executor must outlive the node, whose destructor stops that
  // task.
  scan::ScanRegistry& range_scans() { return range_scans_; }
  executor::Executor* range_scan_executor() const { return scan_executor_; }
  void start_range_scans(executor::Executor& executor);
  ~Node();

 private:
  std::shared_ptr<engine::Bucket> find_locked(std::string_view name) const
      TERN_REQUIRES_SHARED(buckets_mutex_);

  const NodeSettings settings_;
  mutable SharedMutex buckets_mutex_;  // guards the vector, not the buckets
  std::vector<std::shared_ptr<engine::Bucket>> buckets_ TERN_GUARDED_BY(buckets_mutex_);
  std::shared_ptr<const cluster::ClusterMap> global_map_ TERN_GUARDED_BY(buckets_mutex_);
  const auth::UserDirectory users_;
  const Clock& clock_;
  std::function<void(engine::Bucket&)> map_listener_;
  scan::ScanRegistry range_scans_;
  executor::Executor* scan_executor_ = nullptr;
};

}  // namespace tern::commands
