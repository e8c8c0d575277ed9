#include "engine/bucket.h"

#include <random>
#include <stdexcept>

#include <fmt/format.h>

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
      vbuckets_(std::make_unique<VBucket[]>(cluster::kVBucketCount)) {
  publish(std::move(manifest));
  // A node serves every vbucket until an administrator installs a map that says otherwise.
  for (uint16_t id = 0; id < cluster::kVBucketCount; ++id) {
    vbuckets_[id].set_id(id);
    set_vbucket_state(id, cluster::VBucketState::Active);
  }
  documents_.set_vbuckets(vbuckets());  // an expiry in a persistent bucket is numbered there
}

void Bucket::publish(cluster::CollectionsManifest next) {
  manifests_.push_back(std::make_unique<const cluster::CollectionsManifest>(std::move(next)));
  manifest_.store(manifests_.back().get(), std::memory_order_release);
}

ManifestChange Bucket::change_manifest(
    const std::function<cluster::ManifestEdit(const cluster::CollectionsManifest&)>& edit) {
  std::lock_guard lock(manifest_mutex_);
  cluster::ManifestEdit next = edit(manifest());
  if (next.error != ManifestError::None) return {.error = next.error, .uid = manifest().uid()};
  publish(std::move(*next.manifest));
  const uint64_t uid = manifest().uid();
  if (manifest_listener_) manifest_listener_(*this);
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
  std::lock_guard lock(manifest_mutex_);
  publish(std::move(manifest));
}

void Bucket::set_manifest_listener(std::function<void(Bucket&)> listener) {
  std::lock_guard lock(manifest_mutex_);
  manifest_listener_ = std::move(listener);
}

void Bucket::make_persistent(std::unique_ptr<storage::Store> store) {
  if (persistence_) throw std::logic_error("bucket " + name_ + " is already persistent");
  if (!documents_.config().persistent) {
    throw std::logic_error("bucket " + name_ + " has no persistent engine (Config::persistent)");
  }
  persistence_ = std::make_unique<Persistence>(documents_, vbuckets(), std::move(store), clock_);
}

bool Bucket::set_vbucket_state(uint16_t id, cluster::VBucketState state) {
  VBucket* target = vbucket(id);
  if (target == nullptr) return false;
  target->set_state(state, random_u64() | 1);  // a uuid of 0 reads as "no history" to clients
  return true;
}

std::shared_ptr<const cluster::ClusterMap> Bucket::cluster_map() const {
  std::lock_guard lock(map_mutex_);
  return map_;
}

bool Bucket::install_cluster_map(cluster::ClusterMap map) {
  auto replacement = std::make_shared<const cluster::ClusterMap>(std::move(map));
  std::lock_guard lock(map_mutex_);
  if (map_ && map_->newer_than(replacement->epoch(), replacement->rev())) return false;
  map_ = std::move(replacement);
  return true;
}

}  // namespace tern::engine
