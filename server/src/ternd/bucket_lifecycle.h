#pragma once
// The one owner of the set of buckets over ternd's life: it opens the buckets ternd starts
// with, starts their background tasks (expiry and item pagers; a couchbase bucket's warmup,
// flusher, durability timeouts and background fetches), creates, changes and drops buckets
// for the management port while connections use the others, keeps the node state file, and
// stops every bucket's tasks at the end.
//
// Start-up: the node state file (state/node_state.h) in the data directory wins over the
// config file's buckets when there is one, since it holds the changes made over HTTP since;
// ternd logs which it took and, when the two disagree, how. Without a data directory,
// changes live in memory only (changes_persist() is false).
//
// A dropped bucket leaves the node at once; its tasks stop before drop_bucket() returns; its
// files are removed once the last connection on it has let go (the store is closed then), or
// at the next start if ternd stops first. A bucket created over HTTP gets a directory of its
// own, `<name>-<8 hex digits of its uuid>`, so that it never meets the files of a dropped
// bucket of the same name.
//
// Thread-safe: the HTTP threads call it concurrently; changes are serialised.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_map.h"
#include "commands/node.h"
#include "common/mutex.h"
#include "config/file_config.h"
#include "executor/executor_pool.h"
#include "http/node_admin.h"
#include "state/node_state.h"
#include "ternd/options.h"

namespace tern::ternd {

class BucketLifecycle final : public http::NodeAdmin {
 public:
  // All must outlive this object.
  BucketLifecycle(const Options& options, executor::ExecutorPool& executor, commands::Node& node);
  ~BucketLifecycle() override;  // stops every bucket's tasks (stop_all())
  BucketLifecycle(const BucketLifecycle&) = delete;
  BucketLifecycle& operator=(const BucketLifecycle&) = delete;

  // Opens and starts the buckets ternd starts with (the state file's, else `configured`) and
  // adds them to the node. `on_all_warm` is called once every persistent one among them has
  // warmed up (at once, from here, without one), from the last warmup task otherwise. Throws
  // what build_bucket() throws, and state::StateError for an unreadable state file. Call
  // once, before serving.
  void open(const std::vector<config::BucketSpec>& configured, std::function<void()> on_all_warm);

  // The ports the cluster maps list; installs every bucket's map. Call once the ports are
  // bound, before serving; buckets created afterwards get theirs at once.
  void set_ports(uint16_t kv_port, std::optional<uint16_t> mgmt_port, cluster::TlsPorts tls = {});

  // A clean stop: stops every bucket's tasks and writes what persistent buckets still have
  // queued (Persistence::flush_before_exit). Idempotent.
  void stop_all();

  // http::NodeAdmin.
  std::vector<config::BucketSpec> bucket_settings() const override;
  std::optional<config::BucketSpec> bucket_settings(std::string_view name) const override;
  http::AdminResult create_bucket(const config::BucketSpec& spec) override;
  http::AdminResult update_bucket(const config::BucketSpec& spec) override;
  http::AdminResult drop_bucket(std::string_view name) override;
  http::AdminResult flush_bucket(std::string_view name) override;
  bool changes_persist() const override { return state_file_.has_value(); }

 private:
  struct Entry {
    state::BucketState state;  // settings, directory; the manifest is read from the bucket
    executor::OwnerId owner;
  };

  // Builds, starts and adds one bucket.
  void start_bucket(const state::BucketState& state, std::function<void()> on_warm)
      TERN_REQUIRES(mutex_);
  void install_map(engine::Bucket& bucket) TERN_REQUIRES(mutex_);
  // Writes the state file (when there is a data directory).
  void save_state() TERN_REQUIRES(mutex_);
  state::NodeState current_state() const TERN_REQUIRES(mutex_);
  // Removes the directories of buckets dropped in an earlier run.
  void remove_pending(std::vector<std::string> directories) TERN_REQUIRES(mutex_);

  const Options& options_;
  executor::ExecutorPool& executor_;
  commands::Node& node_;
  const std::optional<std::filesystem::path> state_file_;

  mutable Mutex mutex_;
  std::vector<Entry> entries_ TERN_GUARDED_BY(mutex_);  // in creation order
  // Directories of dropped buckets.
  std::vector<std::string> pending_removal_ TERN_GUARDED_BY(mutex_);
  executor::OwnerId next_owner_ TERN_GUARDED_BY(mutex_) = 1;  // 0 is the server's own tasks
  uint16_t kv_port_ TERN_GUARDED_BY(mutex_) = 0;
  std::optional<uint16_t> mgmt_port_ TERN_GUARDED_BY(mutex_);
  cluster::TlsPorts tls_ports_ TERN_GUARDED_BY(mutex_);
  bool ports_known_ TERN_GUARDED_BY(mutex_) = false;
  bool stopped_ TERN_GUARDED_BY(mutex_) = false;
};

}  // namespace tern::ternd
