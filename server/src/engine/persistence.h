#pragma once
// What makes a bucket persistent: its store, and the tasks that keep the store and memory
// in step (the flusher, warmup, the durability monitor, the background fetcher of evicted
// values), wired together. A Bucket owns one
// when it is of type couchbase; an ephemeral bucket has none.
//
// Wiring: the engine's dirty listener wakes the flusher (asynchronously); after each batch
// the flusher tells the durability monitor, which commits and completes the writes it covers.

#include <atomic>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/mutex.h"
#include "engine/bg_fetcher.h"
#include "engine/durability_monitor.h"
#include "engine/engine.h"
#include "engine/flusher.h"
#include "engine/vbucket.h"
#include "engine/warmup.h"
#include "executor/executor.h"
#include "metrics/collector.h"
#include "storage/store.h"

namespace tern::engine {

class Persistence {
 public:
  // `engine` must have Config::persistent set. All must outlive this object.
  Persistence(Engine& engine, std::span<VBucket> vbuckets, std::unique_ptr<storage::Store> store,
              const Clock& clock);

  // Builds warmup (Reader, at once), the flusher (Writer, sleeping until woken), the
  // durability timeout task (NonIO) and the background fetcher (Reader, sleeping until
  // woken) as `owner`'s tasks and schedules them, and connects the
  // engine's dirty listener to an asynchronous wake of the flusher. Call once, before
  // serving; `executor` must outlive the engine's writes. `on_warm`, if set, is called once
  // from the warmup task when the bucket becomes warm (Warmup::set_done_listener).
  void start(executor::Executor& executor, executor::OwnerId owner,
             std::function<void()> on_warm = {});

  // Warmup has run to the end. False before start().
  bool warm() const { return warmup_ && warmup_->done(); }

  storage::Store& store() { return *store_; }
  // The tasks; null until start().
  Flusher* flusher() { return flusher_.get(); }
  Warmup* warmup() { return warmup_.get(); }
  DurabilityMonitor& durability() { return durability_; }
  // Reads evicted values back (Status::NotResident); fetch() only after start().
  BgFetcher& bg_fetcher() { return bg_fetcher_; }

  // Hands the statistics of the bucket's persistence to `collector`, in the order of their
  // lines in metrics/stats.def (ep_queue_size ... ep_bg_fetched); before start() the tasks'
  // read 0 and "initialize".
  void collect(metrics::Collector& collector) const;

  // Flushes the bucket (Engine::flush): memory at once, the disk in the flusher's next
  // batch (Flusher), which it wakes. `on_disk` is called once that batch is synced, from the
  // flusher's thread with no lock held (or at once, on the calling thread, if it already
  // is): it must not block. Until then a crash brings the flushed documents back, and so it
  // is the flush's acknowledgement. A store that refuses the batch delays it (the flusher
  // retries); if the bucket stops first, `on_disk` is destroyed uncalled. Only once warm():
  // otherwise returns false, changing nothing (warmup would load documents after the flush).
  // Call after start().
  bool flush(std::function<void()> on_disk);

  // A clean shutdown: once the executor has stopped the bucket's tasks (unregister), writes
  // everything still queued, so nothing acknowledged is lost, then the vbuckets' failover
  // logs with the mark of a clean shutdown, so that the next start keeps their uuids
  // (failover_logs_on_disk.h). Throws storage::StoreError when the store keeps refusing
  // (Flusher::flush_all), and then writes no mark.
  void flush_before_exit();

  // Writes `vbucket`'s failover log after its state changed (Bucket::set_vbucket_state); a
  // store that refuses is logged, not thrown: the next clean shutdown writes every log.
  // Nothing before warmup is done, which writes every log itself.
  void save_failover_log(const VBucket& vbucket);

 private:
  // The flusher wrote a batch: completes the flushes whose clear it wrote, and starts a
  // rebuild of the bloom filters when compaction has dropped enough since the last.
  void on_persisted();

  // Full eviction: once compaction has dropped (Store::records_purged) a tenth as many
  // records as the bloom filters hold keys, and at least kRebuildAfterPurged, schedules a
  // one-shot Reader task that rebuilds them (PersistenceHooks::rebuild_key_filters), unless one
  // runs. The filters' size (which locks every shard) is read again only after kRebuildAfterPurged
  // more drops. Writer thread only.
  void rebuild_key_filters_if_due();
  static constexpr uint64_t kRebuildAfterPurged = 1000;

  Engine& engine_;
  const std::span<VBucket> vbuckets_;
  const Clock& clock_;
  std::unique_ptr<storage::Store> store_;
  std::shared_ptr<Flusher> flusher_;
  std::shared_ptr<Warmup> warmup_;
  DurabilityMonitor durability_;
  BgFetcher bg_fetcher_;
  executor::Executor* executor_ = nullptr;
  executor::OwnerId owner_ = 0;
  executor::TaskId flusher_id_ = 0;
  uint64_t purged_at_rebuild_ = 0;  // Store::records_purged() when the last rebuild began
  uint64_t purged_at_check_ = 0;    // ... when the filters' size was last read
  std::shared_ptr<std::atomic<bool>> rebuilding_ = std::make_shared<std::atomic<bool>>(false);
  Mutex flush_mutex_;
  // The flushes whose clear is not yet on disk, by number.
  std::vector<std::pair<uint64_t, std::function<void()>>> flush_waiters_
      TERN_GUARDED_BY(flush_mutex_);
};

}  // namespace tern::engine
