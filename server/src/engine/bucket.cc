#include "engine/bucket.h"

#include <fmt/format.h>

#include <random>
#include <stdexcept>

#include "engine/collection_hooks.h"
#include "engine/live_collections_store.h"
#include "engine/persistence_hooks.h"

namespace tern::engine {

namespace {

uint64_t random_u64() {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  return generator();
}

std::string random_uuid_hex() {
  return fmt::format("{:016x}{:016x}", random_u64(), random_u64());
}

}  // namespace

Bucket::Bucket(std::string name, Config config, cluster::CollectionsManifest manifest,
               executor::OwnerId owner, const Clock& clock)
    : name_(std::move(name)),
      uuid_(random_uuid_hex()),
      owner_(owner),
      clock_(clock),
      documents_(config, clock),
      manifest_(nullptr),
      purger_(std::make_shared<CollectionPurger>(documents_, owner)),
      vbuckets_(std::make_unique<VBucket[]>(cluster::kVBucketCount)) {
  {
    MutexLock lock(manifest_mutex_);  // uncontended: nothing else has the bucket yet
    publish(std::move(manifest));
  }
  // A node serves every vbucket until an administrator installs a map that says otherwise.
  for (uint16_t id = 0; id < cluster::kVBucketCount; ++id) {
    vbuckets_[id].set_id(id);
    set_vbucket_state(id, cluster::VBucketState::Active);
  }
  documents_.persistence().set_vbuckets(
      vbuckets());  // an expiry in a persistent bucket is numbered there
}

bool Bucket::publish(cluster::CollectionsManifest next) {
  manifests_.push_back(std::make_unique<const cluster::CollectionsManifest>(std::move(next)));
  const cluster::CollectionsManifest* current = manifests_.back().get();
  const cluster::CollectionsManifest* previous = manifest_.load(std::memory_order_relaxed);
  documents_.collections().set_manifest(current);
  manifest_.store(current, std::memory_order_release);
  std::vector<uint32_t> dropped;
  if (previous != nullptr) {
    for (const cluster::Scope& scope : previous->scopes()) {
      for (const cluster::Collection& collection : scope.collections) {
        if (!current->has_collection(collection.id)) dropped.push_back(collection.id);
      }
    }
  }
  if (dropped.empty()) return false;
  purger_->add(dropped);
  return true;
}

void Bucket::wake_purger() {
  if (purger_executor_ != nullptr) purger_executor_->wake(purger_id_);
}

void Bucket::start_collection_purger(executor::Executor& executor) {
  MutexLock lock(manifest_mutex_);
  if (purger_executor_ != nullptr) {
    throw std::logic_error("bucket " + name_ + ": purger started twice");
  }
  purger_executor_ = &executor;
  purger_id_ = executor.schedule(purger_, purger_->idle() ? executor::kForever : 0);
}

ManifestChange Bucket::change_manifest(
    const std::function<cluster::ManifestEdit(const cluster::CollectionsManifest&)>& edit) {
  MutexLock lock(manifest_mutex_);
  cluster::ManifestEdit next = edit(manifest());
  if (next.error != ManifestError::None) return {.error = next.error, .uid = manifest().uid()};
  const bool dropped = publish(std::move(*next.manifest));
  const uint64_t uid = manifest().uid();
  if (manifest_listener_) manifest_listener_(*this);
  if (dropped) wake_purger();  // once the listener has saved the manifest without them
  return {.error = ManifestError::None, .uid = uid};
}

ManifestChange Bucket::create_scope(std::string_view name) {
  return change_manifest(
      [name](const cluster::CollectionsManifest& current) { return current.with_scope(name); });
}

ManifestChange Bucket::drop_scope(std::string_view name) {
  return change_manifest(
      [name](const cluster::CollectionsManifest& current) { return current.without_scope(name); });
}

ManifestChange Bucket::create_collection(std::string_view scope, std::string_view name,
                                         std::optional<uint32_t> max_ttl_seconds) {
  return change_manifest([&](const cluster::CollectionsManifest& current) {
    return current.with_collection(scope, name, max_ttl_seconds.value_or(0));
  });
}

ManifestChange Bucket::drop_collection(std::string_view scope, std::string_view name) {
  return change_manifest([&](const cluster::CollectionsManifest& current) {
    return current.without_collection(scope, name);
  });
}

void Bucket::replace_manifest(cluster::CollectionsManifest manifest) {
  MutexLock lock(manifest_mutex_);
  if (publish(std::move(manifest))) wake_purger();
}

void Bucket::set_manifest_listener(std::function<void(Bucket&)> listener) {
  MutexLock lock(manifest_mutex_);
  manifest_listener_ = std::move(listener);
}

void Bucket::make_persistent(std::unique_ptr<storage::Store> store) {
  if (persistence_) throw std::logic_error("bucket " + name_ + " is already persistent");
  if (!documents_.config().persistent) {
    throw std::logic_error("bucket " + name_ + " has no persistent engine (Config::persistent)");
  }
  // The bucket's tasks see the store through its manifest (live_collections_store.h).
  auto live = std::make_unique<LiveCollectionsStore>(documents_, std::move(store));
  purger_->set_store(live.get());
  persistence_ = std::make_unique<Persistence>(documents_, vbuckets(), std::move(live), clock_);
}

bool Bucket::set_vbucket_state(uint16_t id, cluster::VBucketState state) {
  VBucket* target = vbucket(id);
  if (target == nullptr) return false;
  // A synced write: only when the log changed.
  if (target->set_state(state, new_failover_uuid()) && persistence_) {
    persistence_->save_failover_log(*target);
  }
  return true;
}

std::shared_ptr<const cluster::ClusterMap> Bucket::cluster_map() const {
  MutexLock lock(map_mutex_);
  return map_;
}

bool Bucket::install_cluster_map(cluster::ClusterMap map) {
  auto replacement = std::make_shared<const cluster::ClusterMap>(std::move(map));
  MutexLock lock(map_mutex_);
  if (map_ && map_->newer_than(replacement->epoch(), replacement->rev())) return false;
  map_ = std::move(replacement);
  return true;
}

}  // namespace tern::engine
