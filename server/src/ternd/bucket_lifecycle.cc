#include "ternd/bucket_lifecycle.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <system_error>

#include "config/durability_levels.h"
#include "engine/bucket_flush.h"
#include "engine/expiry_pager.h"
#include "engine/item_pager.h"
#include "engine/persistence.h"
#include "storage/store.h"
#include "ternd/node_builder.h"

namespace tern::ternd {

namespace {

// Destroys a bucket and, if it was dropped, removes its files: only now is its store closed,
// so nothing writes there any more.
struct RemoveFilesIfDropped {
  std::filesystem::path directory;  // empty for an ephemeral bucket

  void operator()(engine::Bucket* bucket) const {
    const bool dropped = bucket->dropped();
    const std::string name = bucket->name();
    delete bucket;
    if (!dropped || directory.empty()) return;
    std::error_code error;
    std::filesystem::remove_all(directory, error);
    if (error) {
      spdlog::warn("bucket {}: dropped, but its files in {} could not be removed: {}", name,
                   directory.string(), error.message());
    } else {
      spdlog::info("bucket {}: dropped, its files in {} removed", name, directory.string());
    }
  }
};

std::string random_suffix() {
  std::random_device random;
  return fmt::format("{:08x}", random());
}

// What the log says about a bucket when the state file and the config file disagree.
std::string describe(const config::BucketSpec& spec) {
  return fmt::format("{} ({}, {} MiB)", spec.name,
                     spec.type == config::BucketType::Ephemeral ? "ephemeral" : "couchbase",
                     spec.memory_quota_bytes / (1024 * 1024));
}

std::string describe_all(const std::vector<config::BucketSpec>& specs) {
  std::string text;
  for (const config::BucketSpec& spec : specs) text += (text.empty() ? "" : ", ") + describe(spec);
  return text.empty() ? "none" : text;
}

}  // namespace

BucketLifecycle::BucketLifecycle(const Options& options, executor::ExecutorPool& executor,
                                 commands::Node& node)
    : options_(options),
      executor_(executor),
      node_(node),
      state_file_(options.data_dir
                      ? std::optional<std::filesystem::path>(
                            std::filesystem::path(*options.data_dir) / state::kFileName)
                      : std::nullopt) {}

BucketLifecycle::~BucketLifecycle() {
  MutexLock lock(mutex_);
  for (const Entry& entry : entries_) executor_.unregister(entry.owner);
}

void BucketLifecycle::open(const std::vector<config::BucketSpec>& configured,
                           std::function<void()> on_all_warm) {
  MutexLock lock(mutex_);
  std::optional<state::NodeState> saved;
  if (state_file_) saved = state::read_node_state(*state_file_);
  std::vector<state::BucketState> buckets;
  if (saved) {
    std::vector<config::BucketSpec> saved_specs;
    for (const state::BucketState& bucket : saved->buckets) saved_specs.push_back(bucket.settings);
    spdlog::info(
        "node state file {}: its buckets, scopes and collections (changed over the "
        "management port) win over the config file's",
        state_file_->string());
    if (describe_all(saved_specs) != describe_all(configured)) {
      spdlog::warn(
          "the config file declares buckets {}, but the node state file has {}: "
          "serving the state file's, which holds the changes made since; remove {} "
          "to start from the config file again",
          describe_all(configured), describe_all(saved_specs), state_file_->string());
    }
    buckets = std::move(saved->buckets);
  } else {
    for (const config::BucketSpec& spec : configured) {
      buckets.push_back(
          {spec, spec.type == config::BucketType::Couchbase ? spec.name : "", manifest_of(spec)});
    }
  }
  // One count per persistent bucket still warming, plus one for the opening itself, so that
  // warmups done before the last bucket has started do not end the count early.
  auto warming = std::make_shared<std::atomic<size_t>>(1);
  const auto count_down = [warming, on_all_warm] {
    if (warming->fetch_sub(1) == 1) on_all_warm();
  };
  for (const state::BucketState& bucket : buckets) {
    if (bucket.settings.type == config::BucketType::Couchbase) warming->fetch_add(1);
    start_bucket(bucket, count_down);
  }
  count_down();
  // Only now: the state written after the removal must list the buckets just opened.
  if (saved) remove_pending(std::move(saved->pending_removal));
}

void BucketLifecycle::remove_pending(std::vector<std::string> directories) {
  if (directories.empty()) return;
  for (const std::string& directory : directories) {
    std::error_code error;
    std::filesystem::remove_all(std::filesystem::path(*options_.data_dir) / directory, error);
    if (error) spdlog::warn("cannot remove {} of a dropped bucket: {}", directory, error.message());
  }
  save_state();
}

void BucketLifecycle::start_bucket(const state::BucketState& state, std::function<void()> on_warm) {
  const executor::OwnerId owner = next_owner_++;
  const std::filesystem::path directory =
      state.directory.empty() || !options_.data_dir
          ? std::filesystem::path()
          : std::filesystem::path(*options_.data_dir) / state.directory;
  std::shared_ptr<engine::Bucket> bucket(
      build_bucket(options_, state.settings, state.manifest, owner, state.directory).release(),
      RemoveFilesIfDropped{directory});
  engine::Engine& documents = bucket->documents();
  executor_.schedule(
      std::make_shared<engine::ExpiryPager>(documents, options_.expiry_pager_interval, owner),
      options_.expiry_pager_interval);
  engine::attach_item_pager(documents, executor_, owner);
  // A persistent bucket warms up from disk, then flushes what changes.
  if (engine::Persistence* persistence = bucket->persistence()) {
    persistence->start(executor_, owner, std::move(on_warm));
    persistence->flusher()->set_fsync_per_write(options_.fsync_per_write);
  }
  bucket->start_collection_purger(executor_);
  // Scopes and collections changed over HTTP: clients learn the new manifest uid from the map
  // (pushed to those that asked), and the state file has the change before any purge starts.
  bucket->set_manifest_listener([this](engine::Bucket& changed) {
    MutexLock lock(mutex_);
    install_map(changed);
    save_state();
  });
  if (ports_known_) install_map(*bucket);
  node_.add_bucket(bucket);
  entries_.push_back({state, owner});
}

void BucketLifecycle::install_map(engine::Bucket& bucket) {
  install_single_node_map(node_, bucket, kv_port_, mgmt_port_, tls_ports_);
}

void BucketLifecycle::set_ports(uint16_t kv_port, std::optional<uint16_t> mgmt_port,
                                cluster::TlsPorts tls) {
  MutexLock lock(mutex_);
  kv_port_ = kv_port;
  mgmt_port_ = mgmt_port;
  tls_ports_ = tls;
  ports_known_ = true;
  install_global_map(node_, kv_port, mgmt_port, tls);
  for (const auto& bucket : node_.buckets()) install_map(*bucket);
}

void BucketLifecycle::stop_all() {
  MutexLock lock(mutex_);
  if (stopped_) return;
  stopped_ = true;
  // A clean stop loses nothing acknowledged: no request runs any more, so once a bucket's
  // tasks are stopped (unregister waits for a running flush) what is still queued is the
  // last of it.
  for (const Entry& entry : entries_) executor_.unregister(entry.owner);
  for (const auto& bucket : node_.buckets()) {
    engine::Persistence* persistence = bucket->persistence();
    if (persistence == nullptr) continue;
    persistence->flush_before_exit();
    spdlog::info("bucket {}: flushed to disk", bucket->name());
  }
}

std::vector<config::BucketSpec> BucketLifecycle::bucket_settings() const {
  MutexLock lock(mutex_);
  std::vector<config::BucketSpec> settings;
  for (const Entry& entry : entries_) settings.push_back(entry.state.settings);
  return settings;
}

std::optional<config::BucketSpec> BucketLifecycle::bucket_settings(std::string_view name) const {
  MutexLock lock(mutex_);
  for (const Entry& entry : entries_) {
    if (entry.state.settings.name == name) return entry.state.settings;
  }
  return std::nullopt;
}

http::AdminResult BucketLifecycle::create_bucket(const config::BucketSpec& spec) {
  MutexLock lock(mutex_);
  if (node_.find_bucket(spec.name)) return {http::AdminError::Exists, ""};
  const bool persistent = spec.type == config::BucketType::Couchbase;
  if (persistent && !options_.data_dir) {
    return {http::AdminError::Refused,
            "ternd was started without a data directory, so it cannot keep a couchbase "
            "bucket's documents: create an ephemeral bucket, or restart ternd with --data-dir"};
  }
  state::BucketState state{spec, persistent ? spec.name + "-" + random_suffix() : "",
                           cluster::CollectionsManifest::default_only()};
  state.settings.scopes.clear();
  try {
    start_bucket(state, [name = spec.name] { spdlog::info("bucket {}: warm", name); });
  } catch (const std::exception& error) {
    return {http::AdminError::Refused,
            fmt::format("cannot create bucket {}: {}", spec.name, error.what())};
  }
  save_state();
  spdlog::info("bucket {}: created over the management port", spec.name);
  return {};
}

http::AdminResult BucketLifecycle::update_bucket(const config::BucketSpec& spec) {
  MutexLock lock(mutex_);
  const auto entry = std::find_if(entries_.begin(), entries_.end(), [&spec](const Entry& e) {
    return e.state.settings.name == spec.name;
  });
  if (entry == entries_.end()) return {http::AdminError::NotFound, ""};
  const config::BucketSpec& current = entry->state.settings;
  const std::shared_ptr<engine::Bucket> bucket = node_.find_bucket(spec.name);
  if (bucket == nullptr) return {http::AdminError::NotFound, ""};
  // Type and eviction policy cannot change (the form refuses it); the rest takes effect now.
  if (spec.memory_quota_bytes != current.memory_quota_bytes) {
    bucket->documents().set_memory_quota(spec.memory_quota_bytes);
  }
  bucket->documents().set_max_ttl(spec.max_ttl_seconds);
  bucket->set_min_durability_level(
      config::durability_level_number(spec.durability_min_level).value_or(0));
  entry->state.settings = spec;
  entry->state.settings.scopes.clear();
  save_state();
  return {};
}

http::AdminResult BucketLifecycle::drop_bucket(std::string_view name) {
  MutexLock lock(mutex_);
  const auto entry = std::find_if(entries_.begin(), entries_.end(),
                                  [name](const Entry& e) { return e.state.settings.name == name; });
  const std::shared_ptr<engine::Bucket> bucket = node_.remove_bucket(name);
  if (entry == entries_.end() || bucket == nullptr) return {http::AdminError::NotFound, ""};
  executor_.unregister(entry->owner);
  if (!entry->state.directory.empty()) pending_removal_.push_back(entry->state.directory);
  entries_.erase(entry);
  save_state();
  spdlog::info("bucket {}: dropped over the management port", name);
  return {};
}

http::AdminResult BucketLifecycle::flush_bucket(std::string_view name) {
  const std::shared_ptr<engine::Bucket> bucket = node_.find_bucket(name);
  if (bucket == nullptr) return {http::AdminError::NotFound, ""};
  switch (engine::flush_bucket(*bucket)) {
    case engine::FlushResult::Flushed:
      return {};
    case engine::FlushResult::NotWarm:
      return {http::AdminError::Refused,
              fmt::format("bucket {} is still warming up: flush it again once it is warm", name)};
    case engine::FlushResult::NotOnDisk:
      return {http::AdminError::Refused,
              fmt::format("bucket {} is flushed in memory, but its disk did not confirm the "
                          "flush in time: flush it again",
                          name)};
  }
  return {};
}

state::NodeState BucketLifecycle::current_state() const {
  state::NodeState state;
  for (const Entry& entry : entries_) {
    state::BucketState bucket = entry.state;
    if (const auto live = node_.find_bucket(bucket.settings.name))
      bucket.manifest = live->manifest();
    state.buckets.push_back(std::move(bucket));
  }
  state.pending_removal = pending_removal_;
  return state;
}

void BucketLifecycle::save_state() {
  if (!state_file_) return;
  state::write_node_state(*state_file_, current_state());
}

}  // namespace tern::ternd
