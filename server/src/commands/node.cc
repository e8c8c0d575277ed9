#include "commands/node.h"

#include <algorithm>
#include <cstdint>

#include "scan/scan_reaper.h"

namespace tern::commands {

Node::Node(NodeSettings settings, std::vector<std::unique_ptr<engine::Bucket>> buckets,
           auth::UserDirectory users, const Clock& clock)
    : settings_(std::move(settings)),
      users_(std::move(users)),
      clock_(clock),
      range_scans_(clock, settings_.range_scans) {
  for (auto& bucket : buckets) buckets_.push_back(std::move(bucket));
}

namespace {

// The reaper's owner on the executor: its own, so that the node can stop it alone.
executor::OwnerId reaper_owner(const scan::ScanRegistry& registry) {
  return static_cast<executor::OwnerId>(reinterpret_cast<uintptr_t>(&registry));
}

}  // namespace

Node::~Node() {
  if (scan_executor_ != nullptr) scan_executor_->unregister(reaper_owner(range_scans_));
}

void Node::start_range_scans(executor::Executor& executor) {
  scan_executor_ = &executor;
  scan::start_scan_reaper(range_scans_, executor, reaper_owner(range_scans_));
}

std::shared_ptr<engine::Bucket> Node::find_locked(std::string_view name) const {
  for (const auto& bucket : buckets_) {
    if (bucket->name() == name) return bucket;
  }
  return nullptr;
}

std::shared_ptr<engine::Bucket> Node::find_bucket(std::string_view name) const {
  ReaderLock lock(buckets_mutex_);
  return find_locked(name);
}

std::vector<std::shared_ptr<engine::Bucket>> Node::buckets() const {
  ReaderLock lock(buckets_mutex_);
  return buckets_;
}

bool Node::add_bucket(std::shared_ptr<engine::Bucket> bucket) {
  WriterLock lock(buckets_mutex_);
  if (find_locked(bucket->name())) return false;
  buckets_.push_back(std::move(bucket));
  return true;
}

std::shared_ptr<engine::Bucket> Node::remove_bucket(std::string_view name) {
  WriterLock lock(buckets_mutex_);
  const auto it = std::find_if(buckets_.begin(), buckets_.end(),
                               [name](const auto& bucket) { return bucket->name() == name; });
  if (it == buckets_.end()) return nullptr;
  std::shared_ptr<engine::Bucket> removed = std::move(*it);
  buckets_.erase(it);
  removed->mark_dropped();
  range_scans_.drop_bucket(removed.get());
  return removed;
}

std::shared_ptr<engine::Bucket> Node::initial_bucket() const {
  if (settings_.open_access) {
    ReaderLock lock(buckets_mutex_);
    return buckets_.empty() ? nullptr : buckets_.front();
  }
  return settings_.anonymous_bucket.empty() ? nullptr : find_bucket(settings_.anonymous_bucket);
}

void Node::set_global_map(cluster::ClusterMap map) {
  auto installed = std::make_shared<const cluster::ClusterMap>(std::move(map));
  WriterLock lock(buckets_mutex_);
  global_map_ = std::move(installed);
}

std::shared_ptr<const cluster::ClusterMap> Node::global_map() const {
  ReaderLock lock(buckets_mutex_);
  return global_map_;
}

bool Node::install_cluster_map(engine::Bucket& bucket, cluster::ClusterMap map) {
  if (!bucket.install_cluster_map(std::move(map))) return false;
  if (map_listener_) map_listener_(bucket);
  return true;
}

void Node::set_cluster_map_listener(std::function<void(engine::Bucket&)> listener) {
  map_listener_ = std::move(listener);
}

}  // namespace tern::commands
