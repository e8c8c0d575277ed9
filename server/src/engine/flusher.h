#pragma once
// Persists a bucket's changes. Each run drains the engine's dirty queues
// (PersistenceHooks::take_dirty) and writes everything taken as one synced batch (Store::write):
// one fsync for as many writes as arrived meanwhile (group commit). It then advances each vbucket's
// persisted seqno, and tells the listener (the durability monitor). It sleeps until woken: the
// engine's dirty listener wakes it asynchronously when changes appear; it never polls.
//
// The persisted seqno it sets is exact: before taking the queues it reads every vbucket's high
// seqno, and a change is numbered and queued under the same shard lock that take_dirty()
// takes, so every change numbered up to those seqnos is in the batch (or an earlier one).
// The seqno stored beside the batch may be higher: it also covers the batch's own items
// numbered after that read, so that a restart never numbers a change with a seqno already
// on disk. (A change numbered below it that was not yet queued is then absent after a
// crash: it was never reported persisted, so nothing that waited for it was acknowledged.)
// A change numbered after that read but queued before the take is written by the run
// without being reported persisted; so is one numbered during the run. Such a change may
// have sent no wake (the queues were not empty since the last take): a run after which any
// vbucket's high seqno is past its read runs again at once, and that run, taking nothing,
// reports them persisted. Without it a durable write on that change would wait for some
// unrelated later write, or time out.
//
// A tombstone is stored with its deletion time as its expiry (storage::Record). The engine
// keeps a tombstone's purge time instead (Item::expiry_ms: deletion plus
// Config::metadata_purge_seconds), so the flusher subtracts the purge interval; warmup adds
// it back.
//
// A flush (Engine::flush) clears the store: the first take after it tells the flusher, and
// that batch is written with Store::clear_and_write, so that the disk goes from everything
// before the flush to what came after it in one atomic step. Batches taken before it were
// written before it (a refused one's changes are dropped: they were flushed).
//
// For benchmarks only, set_fsync_per_write(true) gives the baseline group commit is measured
// against: each item of a batch goes to the store in a synced write of its own, one fsync per
// change; what the batch then reports persisted is the same.

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/vbucket.h"
#include "executor/task.h"
#include "storage/store.h"

namespace tern::engine {

class Flusher final : public executor::Task {
 public:
  // How long a run waits before trying again after the store refused a batch (the batch is
  // kept and retried; nothing is lost from memory).
  static constexpr double kRetrySeconds = 1.0;

  // How many times in a row flush_all() lets the store refuse a batch before giving up.
  static constexpr int kExitAttempts = 3;

  // `vbuckets` are the bucket's (cluster::kVBucketCount of them), indexed by id. `clock` is
  // the executor's: it times the wait before a retry. All must outlive the task.
  Flusher(Engine& engine, std::span<VBucket> vbuckets, storage::Store& store,
          executor::OwnerId owner, const Clock& clock = SystemClock::instance());

  // One batch, then sleeps until woken (or runs again at once when more is queued). After a
  // refused batch it waits kRetrySeconds, even when woken meanwhile, so a failing disk is not
  // retried (and logged) once per incoming write.
  bool run() override;

  // Writes everything queued, on the calling thread, until the queues are empty. For a
  // clean shutdown, once the executor no longer runs the bucket's tasks. Throws
  // storage::StoreError when the store refuses kExitAttempts batches in a row.
  void flush_all();

  // Called after each batch is on disk and the persisted seqnos are advanced. Set before
  // the task is scheduled.
  void set_persisted_listener(std::function<void()> listener);

  // The benchmark baseline (see the top of this file); off by default. May be set while the
  // task is scheduled: it applies from the next batch on.
  void set_fsync_per_write(bool on) { fsync_per_write_.store(on, std::memory_order_relaxed); }

  uint64_t total_persisted() const { return total_persisted_.load(std::memory_order_relaxed); }
  // Items taken from the queues and not yet on disk (STAT ep_flusher_todo).
  uint64_t todo() const { return todo_.load(std::memory_order_relaxed); }
  uint64_t batches() const { return batches_.load(std::memory_order_relaxed); }
  uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }
  // The number of the latest flush (Engine::flush) whose clear is on disk; 0 for none.
  uint64_t flushes_on_disk() const { return flushes_on_disk_.load(std::memory_order_acquire); }

 private:
  // One batch: returns false when the store refused it (it stays in batch_ for a retry).
  bool flush_once();
  // A flush came after the store refused the first `refused` items of batch_: they were
  // changed before it, so the flush's clear takes their place and they leave batch_.
  void drop_refused_before_flush(size_t refused);
  // Whether any vbucket numbered a change since the last run read the high seqnos.
  bool numbered_since_read() const;
  // Raises each vbucket's persisted seqno to the snapshot the run read; returns whether any
  // moved.
  bool advance_persisted_seqnos();

  // Writes records_ and seqnos_ to the store: one synced batch (clearing the store first for
  // a flush), or one per record in the baseline mode. Throws storage::StoreError as
  // Store::write does.
  void write_batch();

  Engine& engine_;
  const std::span<VBucket> vbuckets_;
  storage::Store& store_;
  const Clock& clock_;
  std::function<void()> persisted_listener_;
  // Touched only by run() / flush_all(), never concurrently; kept between runs so that a
  // batch does not allocate them afresh.
  std::vector<ItemPtr> batch_;
  std::vector<uint64_t> snapshot_;  // each vbucket's high seqno before the take
  std::vector<uint64_t> stored_;    // each vbucket's seqno to store with the batch
  std::vector<storage::Record> records_;
  std::vector<storage::VBucketSeqno> seqnos_;
  std::atomic<bool> fsync_per_write_{false};
  int64_t retry_at_ms_ = 0;  // after a refused batch: no attempt before this steady time
  uint64_t clearing_for_ = 0;  // the flush the next write clears the store for, or 0
  std::atomic<uint64_t> total_persisted_{0};
  std::atomic<uint64_t> todo_{0};
  std::atomic<uint64_t> batches_{0};
  std::atomic<uint64_t> failures_{0};
  std::atomic<uint64_t> flushes_on_disk_{0};
};

}  // namespace tern::engine
