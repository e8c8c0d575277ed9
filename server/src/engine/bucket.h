#pragma once
// A bucket: a named, separately accounted key space, as Couchbase has them. It owns its
// documents (an Engine: the hash table with its quota and stats), its 1024 vbuckets (state,
// seqno, uuid), its collections manifest, and the cluster map clients route by. Requests
// reach it only after the connection selected it.
//
// Layers, as in Couchbase's data service: Bucket -> VBucket -> hash table (Engine).
//
// Thread-safe. The manifest is fixed at start-up; the cluster map may be replaced at any
// time by an administrator (SET_CLUSTER_CONFIG), and readers keep the map they loaded.

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "cluster/cluster_map.h"
#include "cluster/collections_manifest.h"
#include "cluster/vbucket_of.h"
#include "common/clock.h"
#include "engine/engine.h"
#include "engine/persistence.h"
#include "engine/vbucket.h"
#include "executor/task.h"
#include "storage/store.h"

namespace tern::engine {

class Bucket {
 public:
  // `owner` names the bucket's tasks on the executor pool, so they can be stopped together.
  Bucket(std::string name, Config config, cluster::CollectionsManifest manifest,
         executor::OwnerId owner, const Clock& clock = SystemClock::instance());
  Bucket(const Bucket&) = delete;
  Bucket& operator=(const Bucket&) = delete;

  const std::string& name() const { return name_; }
  // 32 hex digits, fixed for the bucket's life: the cluster map's "uuid".
  const std::string& uuid() const { return uuid_; }
  executor::OwnerId executor_owner() const { return owner_; }

  Engine& documents() { return documents_; }
  const cluster::CollectionsManifest& manifest() const { return manifest_; }

  // The vbucket with this id, or nullptr if there is no such vbucket (id >= kVBucketCount).
  VBucket* vbucket(uint16_t id) { return id < cluster::kVBucketCount ? &vbuckets_[id] : nullptr; }

  // All kVBucketCount vbuckets, by id.
  std::span<VBucket> vbuckets() { return {vbuckets_.get(), cluster::kVBucketCount}; }

  // Makes the bucket persistent (type couchbase): `store` holds its documents on disk. Call
  // once, before serving and before Persistence::start(); the engine's Config must have
  // `persistent` set (std::logic_error otherwise, or on a second call).
  void make_persistent(std::unique_ptr<storage::Store> store);

  // The store and its tasks; null for an ephemeral bucket.
  Persistence* persistence() { return persistence_.get(); }

  // Whether data commands may run: always for an ephemeral bucket, once warmup is done for
  // a persistent one (until then they answer Etmpfail).
  bool warm() const { return !persistence_ || persistence_->warm(); }

  // Sets a vbucket's state (SET_VBUCKET); false if there is no such vbucket.
  bool set_vbucket_state(uint16_t id, cluster::VBucketState state);

  // The map clients route by; never null once install_cluster_map() was called.
  std::shared_ptr<const cluster::ClusterMap> cluster_map() const;

  // Replaces the map unless `map` is older than the current one (by revEpoch, then rev);
  // returns whether it was installed.
  bool install_cluster_map(cluster::ClusterMap map);

 private:
  const std::string name_;
  const std::string uuid_;
  const executor::OwnerId owner_;
  const Clock& clock_;  // the persistence's tasks time their waits with it
  Engine documents_;
  const cluster::CollectionsManifest manifest_;
  std::unique_ptr<VBucket[]> vbuckets_;
  mutable std::mutex map_mutex_;  // guards the pointer, not the map: readers share the map
  std::shared_ptr<const cluster::ClusterMap> map_;
  std::unique_ptr<Persistence> persistence_;
};

}  // namespace tern::engine
