#pragma once
// Persists a bucket's changes. Each run drains the engine's dirty queues (Engine::take_dirty)
// and writes everything taken as one synced batch (Store::write): one fsync for as many
// writes as arrived meanwhile (group commit). It then marks the items persisted, advances each
// vbucket's persisted seqno, and tells the listener (the durability monitor). It sleeps until
// woken: the engine's dirty listener wakes it asynchronously when changes appear; it never
// polls.
//
// The persisted seqno it sets is exact: before taking the queues it reads every vbucket's high
// seqno, and a change is numbered and queued under the same shard lock that take_dirty()
// takes, so every change numbered up to those seqnos is in the batch (or an earlier one).

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

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

  // `vbuckets` are the bucket's (cluster::kVBucketCount of them). All must outlive the task.
  Flusher(Engine& engine, std::span<VBucket> vbuckets, storage::Store& store,
          executor::OwnerId owner);

  bool run() override;

  // Writes everything queued, on the calling thread, until the queues are empty. For a
  // clean shutdown, once the executor no longer runs the bucket's tasks.
  void flush_all();

  // Called after each batch is on disk and the persisted seqnos are advanced. Set before
  // the task is scheduled.
  void set_persisted_listener(std::function<void()> listener);

  uint64_t total_persisted() const { return total_persisted_.load(std::memory_order_relaxed); }
  // Items taken from the queues and not yet on disk (STAT ep_flusher_todo).
  uint64_t todo() const { return todo_.load(std::memory_order_relaxed); }
  uint64_t batches() const { return batches_.load(std::memory_order_relaxed); }
  uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }

 private:
  // One batch: returns false when the store refused it (it stays in batch_ for a retry).
  bool flush_once();

  Engine& engine_;
  const std::span<VBucket> vbuckets_;
  storage::Store& store_;
  std::function<void()> persisted_listener_;
  std::vector<ItemPtr> batch_;  // touched only by run() / flush_all(), never concurrently
  std::atomic<uint64_t> total_persisted_{0};
  std::atomic<uint64_t> todo_{0};
  std::atomic<uint64_t> batches_{0};
  std::atomic<uint64_t> failures_{0};
};

}  // namespace tern::engine
