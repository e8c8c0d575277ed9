#pragma once
// Purges the documents of dropped collections, in the background, as Couchbase does: a drop
// only changes the manifest (the collection answers UnknownCollection at once), and this task
// then removes what the bucket holds of it, from disk and from memory, while requests go on.
// It sleeps until woken (Bucket wakes it when a change drops collections).
//
// One purge: first the store deletes the collections' records (Store::remove_ranges, one
// atomic batch); under full eviction each record deleted also takes what memory holds of its
// key, or stops counting it as a document on disk only (CollectionHooks::purge_dropped_key). Then
// every shard is swept (CollectionHooks::purge_dropped_collections), kShardsPerRun per run, so that
// a run stays short. No key of a dropped collection can come back meanwhile: the engine refuses its
// writes, and the store no longer writes its records (LiveCollectionsStore). A store that refuses
// is retried after kRetrySeconds; memory waits for the disk, so that the counts of documents on
// disk only stay exact.
//
// A crash mid-purge loses nothing it should keep: the manifest without the collection is
// saved before the drop, and warmup drops and deletes what the manifest lacks.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "common/mutex.h"
#include "engine/engine.h"
#include "executor/task.h"
#include "storage/store.h"

namespace tern::engine {

class CollectionPurger final : public executor::Task {
 public:
  static constexpr size_t kShardsPerRun = 16;
  static constexpr double kRetrySeconds = 1.0;

  CollectionPurger(Engine& engine, executor::OwnerId owner);

  // The store to delete from; none (the default): memory only (an ephemeral bucket). Set
  // before the task is scheduled; it must outlive the task.
  void set_store(storage::Store* store) { store_ = store; }

  // Queues collections the manifest no longer has; the caller then wakes the task. Their
  // keys must already be gone to the engine (CollectionHooks::set_manifest). Thread-safe.
  void add(std::span<const uint32_t> collection_ids);

  bool run() override;

  // Whether nothing is queued or under way.
  bool idle() const;
  // Items and tombstones removed from memory by the sweeps so far, and purges finished.
  uint64_t purged_items() const { return purged_items_.load(std::memory_order_relaxed); }
  uint64_t purges() const { return purges_.load(std::memory_order_relaxed); }

 private:
  // Deletes the records of current_ from the store; false when it refused.
  bool purge_disk();

  Engine& engine_;
  storage::Store* store_ = nullptr;
  mutable Mutex mutex_;
  std::vector<uint32_t> pending_ TERN_GUARDED_BY(mutex_);
  bool busy_ TERN_GUARDED_BY(mutex_) = false;  // current_ is being purged
  // Touched only by run(), which never runs concurrently with itself.
  std::vector<uint32_t> current_;
  bool disk_done_ = false;
  size_t next_shard_ = 0;
  uint64_t swept_ = 0;
  std::atomic<uint64_t> purged_items_{0};
  std::atomic<uint64_t> purges_{0};
};

}  // namespace tern::engine
