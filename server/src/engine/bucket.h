#pragma once
// A bucket: a named, separately accounted key space, as Couchbase has them. It owns its
// documents (an Engine: a shard per vbucket, with the quota and stats), its 1024 vbuckets
// (state, seqno, failover log), its collections manifest, and the cluster map clients route
// by. Requests reach it only after the connection selected it.
//
// Layers, as in Couchbase's data service: Bucket -> VBucket -> hash table. A vbucket's state
// is its VBucket (vbucket.h); its documents are the engine's shard of the same number.
//
// Thread-safe. Scopes and collections change while requests run (create_scope() and the
// rest, from the management port): requests read the manifest lock-free, and a dropped
// collection's documents are purged in the background. The cluster map may be replaced at
// any time by an administrator (SET_CLUSTER_CONFIG), and readers keep the map they loaded.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_map.h"
#include "cluster/collections_manifest.h"
#include "cluster/vbucket_of.h"
#include "common/clock.h"
#include "common/mutex.h"
#include "engine/collection_purger.h"
#include "engine/engine.h"
#include "engine/persistence.h"
#include "engine/vbucket.h"
#include "executor/executor.h"
#include "executor/task.h"
#include "metrics/command_stats.h"
#include "storage/store.h"

namespace tern::engine {

using cluster::ManifestChange;
using cluster::ManifestError;

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

  // The collections manifest now: one atomic load, no lock and no allocation (every keyed
  // request reads it). The reference stays valid for the bucket's life, even once a change
  // replaced the manifest: every manifest the bucket had is kept until it is destroyed.
  // They are small (names and ids) and change only when an administrator edits them, so
  // that costs little, and spares readers any reference counting. A caller that reads it
  // twice may see two manifests: read it once per request.
  const cluster::CollectionsManifest& manifest() const {
    return *manifest_.load(std::memory_order_acquire);
  }

  // Changes to scopes and collections, as the management port makes them. Each builds the
  // next manifest (CollectionsManifest::with_scope() and the rest: their rules and errors),
  // publishes it, and answers the new uid; a refused one changes nothing and answers the
  // error. Changes are serialised, and each calls the manifest listener before returning.
  // A collection created is usable at once; a dropped one (or a dropped scope's) answers
  // UnknownCollection at once, and its documents are purged from memory and disk by a
  // background task. max_ttl_seconds: the collection's maxTTL (none: the bucket's applies).
  ManifestChange create_scope(std::string_view name);
  ManifestChange drop_scope(std::string_view name);
  ManifestChange create_collection(std::string_view scope, std::string_view name,
                                   std::optional<uint32_t> max_ttl_seconds);
  ManifestChange drop_collection(std::string_view scope, std::string_view name);

  // Puts `manifest` in place of the current one, as it is (its uid and next ids too): at
  // start-up, from the state file, before the bucket serves and before its warmup starts
  // (warmup drops what the manifest lacks, see warmup.h). Collections the current manifest
  // has and `manifest` lacks are purged as dropped ones are. Does not call the listener.
  void replace_manifest(cluster::CollectionsManifest manifest);

  // Called after each change made by the four methods above, with the new manifest already
  // published and before the purge of anything it dropped begins, on the thread that made the
  // change and under the writers' lock (listeners see the changes one at a time, in order).
  // It must not change the manifest itself. Set it before changes are made.
  void set_manifest_listener(std::function<void(Bucket&)> listener);

  // Schedules the task that purges dropped collections (CollectionPurger) on `executor`,
  // with the bucket's other tasks: after make_persistent(), before serving. Drops made
  // before are purged then; until it is called they are only queued.
  void start_collection_purger(executor::Executor& executor);
  CollectionPurger& collection_purger() { return *purger_; }

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

  // What its commands cost and how they ended (the dispatcher records them; /metrics shows).
  metrics::CommandStats& command_stats() { return command_stats_; }

  // Whether data commands may run: always for an ephemeral bucket, once warmup is done for
  // a persistent one (until then they answer Etmpfail).
  bool warm() const { return !persistence_ || persistence_->warm(); }

  // Sets a vbucket's state (SET_VBUCKET); false if there is no such vbucket.
  bool set_vbucket_state(uint16_t id, cluster::VBucketState state);

  // Marks the bucket dropped (the node no longer has it): connections on it close at their
  // next request. One relaxed load per request reads it.
  void mark_dropped() { dropped_.store(true, std::memory_order_relaxed); }
  bool dropped() const { return dropped_.load(std::memory_order_relaxed); }

  // The least durability every mutation gets (Couchbase's durabilityMinLevel), as the
  // protocol numbers levels (1 Majority .. 3 PersistToMajority; 0 none): a request asking
  // for less is raised to it. Changeable while requests run.
  void set_min_durability_level(uint8_t level) {
    min_durability_level_.store(level, std::memory_order_relaxed);
  }
  uint8_t min_durability_level() const {
    return min_durability_level_.load(std::memory_order_relaxed);
  }

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
  // Builds the next manifest with `edit`, publishes it and tells the listener.
  ManifestChange change_manifest(
      const std::function<cluster::ManifestEdit(const cluster::CollectionsManifest&)>& edit);
  // Publishes `next` (to the engine first, so that it never accepts a key the dispatcher
  // refuses) and queues the collections it no longer has for the purger; returns whether it
  // dropped any.
  bool publish(cluster::CollectionsManifest next) TERN_REQUIRES(manifest_mutex_);
  // Wakes the purger, if it was started.
  void wake_purger() TERN_REQUIRES(manifest_mutex_);

  Engine documents_;
  Mutex manifest_mutex_;  // serialises the writers of the manifest
  // Every manifest the bucket had, the current one last (see manifest()).
  std::vector<std::unique_ptr<const cluster::CollectionsManifest>> manifests_
      TERN_GUARDED_BY(manifest_mutex_);
  std::atomic<const cluster::CollectionsManifest*> manifest_;
  std::function<void(Bucket&)> manifest_listener_ TERN_GUARDED_BY(manifest_mutex_);
  const std::shared_ptr<CollectionPurger> purger_;
  executor::Executor* purger_executor_ TERN_GUARDED_BY(manifest_mutex_) = nullptr;
  executor::TaskId purger_id_ TERN_GUARDED_BY(manifest_mutex_) = 0;
  std::unique_ptr<VBucket[]> vbuckets_;
  mutable Mutex map_mutex_;
  // The pointer is guarded, not the map: readers share the map.
  std::shared_ptr<const cluster::ClusterMap> map_ TERN_GUARDED_BY(map_mutex_);
  std::unique_ptr<Persistence> persistence_;
  metrics::CommandStats command_stats_;
  std::atomic<bool> dropped_ = false;
  std::atomic<uint8_t> min_durability_level_ = 0;
};

}  // namespace tern::engine
