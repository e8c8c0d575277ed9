#pragma once
// The durable writes of one persistent bucket that wait for the disk: with no replicas,
// MajorityAndPersistToActive and PersistToMajority complete once the flusher has persisted
// the write's seqno. (Majority completes when the write is applied, and never comes here.)
//
// A tracked write is a prepared item (MutationOptions::prepare). When the flusher reports
// its vbucket's persisted seqno at or past the write's, the monitor commits it
// (PersistenceHooks::commit_prepared) and tells its waiter Committed. A write whose deadline passes
// first is told Ambiguous, as Couchbase answers SyncWriteAmbiguous; it stays tracked and is
// still committed once persisted, so memory and disk never disagree about it.
//
// One timeout task per bucket sleeps until the earliest deadline. A write that brings an
// earlier deadline re-aims it with the executor's asynchronous snooze(): the writer posts to
// the scheduler and goes on, never waiting for it (SnoozeMode::Wait exists only so that
// make bench-durability can measure what waiting would cost, in the same run).
//
// Thread-safe. Waiters are called with no lock held, from the flusher's or the timeout
// task's thread (or the caller's, when the write is already persisted): they must not block.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "common/clock.h"
#include "engine/engine.h"
#include "engine/vbucket.h"
#include "executor/executor.h"
#include "executor/task.h"

namespace tern::engine {

enum class SyncWriteOutcome { Committed, Ambiguous };
using SyncWriteWaiter = std::function<void(SyncWriteOutcome)>;

enum class SnoozeMode { Async, Wait };

class DurabilityMonitor {
 public:
  // All must outlive the monitor. Call start() before add() (without it, writes complete
  // when persisted but no deadline is ever enforced).
  DurabilityMonitor(Engine& engine, std::span<VBucket> vbuckets, const Clock& clock,
                    SnoozeMode snooze_mode = SnoozeMode::Async);
  ~DurabilityMonitor();

  // Schedules the timeout task (NonIO, sleeping until a deadline) for `owner`. The executor
  // must outlive the monitor, which cancels the task when destroyed.
  void start(executor::Executor& executor, executor::OwnerId owner);

  // Tracks the write Engine::store (or any mutation) prepared for `key` with this CAS, as its
  // vbucket numbered it. deadline_ms is on the clock's steady time. The waiter is called once:
  // at once if the seqno is already persisted. Throws std::out_of_range for a vbucket id
  // past the span (callers check ids against the bucket first).
  void add(uint16_t vbucket, uint64_t seqno, std::string key, uint64_t cas, int64_t deadline_ms,
           SyncWriteWaiter waiter);

  // The flusher advanced persisted seqnos: commits and completes every write they cover.
  void on_persisted();

  // The timeout task's work: tells Ambiguous to every waiter whose deadline has passed, and
  // returns the earliest deadline still pending (kNeverMs for none).
  int64_t expire_due();

  uint64_t pending() const;  // tracked and not yet committed
  uint64_t committed() const { return committed_.load(std::memory_order_relaxed); }
  uint64_t ambiguous() const { return ambiguous_.load(std::memory_order_relaxed); }

  struct Impl;  // opaque: defined in durability_monitor.cc

 private:
  std::unique_ptr<Impl> impl_;
  std::atomic<uint64_t> committed_{0};
  std::atomic<uint64_t> ambiguous_{0};
};

}  // namespace tern::engine
