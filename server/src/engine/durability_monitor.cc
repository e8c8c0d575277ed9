#include "engine/durability_monitor.h"

#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "engine/persistence_hooks.h"

namespace tern::engine {
namespace {

struct Entry {
  std::string key;
  uint64_t cas;
  int64_t deadline_ms;
  // Emptied once called: a write told Ambiguous stays tracked until it is committed, with
  // no one left to tell.
  SyncWriteWaiter waiter;
};

// A write whose vbucket's persisted seqno covers it, to commit once the lock is released.
struct Completion {
  std::string key;
  uint64_t cas;
  SyncWriteWaiter waiter;  // empty when the write was already told Ambiguous
};

// The executor's snooze takes seconds and rounds the waketime up to the next millisecond;
// half a millisecond under the deadline makes that rounding land on the deadline itself
// rather than, through floating point, one millisecond after it.
double seconds_until(int64_t deadline_ms, int64_t now_ms) {
  if (deadline_ms == executor::kNeverMs) return executor::kForever;
  return (static_cast<double>(deadline_ms - now_ms) - 0.5) / 1000.0;
}

}  // namespace

struct DurabilityMonitor::Impl {
  Impl(DurabilityMonitor& self, Engine& engine, std::span<VBucket> vbuckets, const Clock& clock,
       SnoozeMode snooze_mode)
      : self(self),
        engine(engine),
        vbuckets(vbuckets),
        clock(clock),
        snooze_mode(snooze_mode),
        pending_by_vbucket(vbuckets.size()) {}

  // Commits each write and tells its waiter, with no lock held: commit_prepared takes the
  // key's shard lock, and waiters hand the outcome to a connection.
  void complete(std::vector<Completion>& done) {
    for (Completion& write : done) {
      // False would mean the engine no longer holds the prepared item (nothing drops one,
      // not even FLUSH); the write is on disk all the same, so it still counts as committed.
      engine.persistence().commit_prepared(write.key, write.cas);
      self.committed_.fetch_add(1, std::memory_order_relaxed);
      if (write.waiter) write.waiter(SyncWriteOutcome::Committed);
    }
  }

  // Moves every write of the vbucket at or below its persisted seqno to `done`.
  void take_persisted(uint16_t vbucket, std::vector<Completion>& done) TERN_REQUIRES(mutex) {
    auto& writes = pending_by_vbucket[vbucket];
    const uint64_t persisted = vbuckets[vbucket].persisted_seqno();
    auto end = writes.upper_bound(persisted);
    for (auto it = writes.begin(); it != end; ++it) {
      Entry& entry = it->second;
      if (entry.waiter) deadlines.erase({entry.deadline_ms, vbucket, it->first});
      done.push_back({std::move(entry.key), entry.cas, std::move(entry.waiter)});
    }
    pending -= std::distance(writes.begin(), end);
    writes.erase(writes.begin(), end);
    if (writes.empty()) vbuckets_with_writes.erase(vbucket);
  }

  // Tells Ambiguous to every untold write whose deadline has passed and returns the earliest
  // deadline still untold. `aim` (the timeout task's; empty for other callers) points the task
  // there while the lock is still held, so that no add() can slip an earlier deadline in
  // between.
  int64_t expire_due(const std::function<void(int64_t)>& aim) {
    std::vector<SyncWriteWaiter> expired;
    int64_t next;
    {
      MutexLock lock(mutex);
      const int64_t now = clock.steady_ms();
      while (!deadlines.empty() && std::get<0>(*deadlines.begin()) <= now) {
        auto [deadline, vbucket, seqno] = *deadlines.begin();
        deadlines.erase(deadlines.begin());
        expired.push_back(std::move(pending_by_vbucket[vbucket].at(seqno).waiter));
      }
      next = deadlines.empty() ? executor::kNeverMs : std::get<0>(*deadlines.begin());
      if (aim) {
        aimed_ms = next;
        aim(next);
      }
    }
    self.ambiguous_.fetch_add(expired.size(), std::memory_order_relaxed);
    for (SyncWriteWaiter& waiter : expired) waiter(SyncWriteOutcome::Ambiguous);
    return next;
  }

  DurabilityMonitor& self;
  Engine& engine;
  const std::span<VBucket> vbuckets;
  const Clock& clock;
  const SnoozeMode snooze_mode;

  executor::Executor* executor = nullptr;
  executor::TaskId task_id = 0;

  mutable Mutex mutex;
  // By vbucket id, then seqno.
  std::vector<std::map<uint64_t, Entry>> pending_by_vbucket TERN_GUARDED_BY(mutex);
  // So that on_persisted() visits only the vbuckets that have writes, not all 1024.
  std::set<uint16_t> vbuckets_with_writes TERN_GUARDED_BY(mutex);
  // The untold writes by deadline: (deadline_ms, vbucket, seqno).
  std::set<std::tuple<int64_t, uint16_t, uint64_t>> deadlines TERN_GUARDED_BY(mutex);
  // Where the timeout task is aimed: an add() with an earlier deadline re-aims it.
  int64_t aimed_ms TERN_GUARDED_BY(mutex) = executor::kNeverMs;
  uint64_t pending TERN_GUARDED_BY(mutex) = 0;
};

namespace {

// Sleeps until the earliest deadline, tells the expired writes Ambiguous, and aims itself at
// the next one.
class DurabilityTimeoutTask final : public executor::Task {
 public:
  DurabilityTimeoutTask(DurabilityMonitor::Impl& monitor, executor::OwnerId owner)
      : Task(executor::TaskType::NonIO, "durability timeout", owner), monitor_(monitor) {}

  bool run() override {
    monitor_.expire_due([this](int64_t next) {
      snooze(seconds_until(next, monitor_.clock.steady_ms()));
    });
    return true;
  }

 private:
  DurabilityMonitor::Impl& monitor_;
};

}  // namespace

DurabilityMonitor::DurabilityMonitor(Engine& engine, std::span<VBucket> vbuckets,
                                     const Clock& clock, SnoozeMode snooze_mode)
    : impl_(std::make_unique<Impl>(*this, engine, vbuckets, clock, snooze_mode)) {}

DurabilityMonitor::~DurabilityMonitor() {
  if (impl_->executor) impl_->executor->cancel(impl_->task_id);
}

void DurabilityMonitor::start(executor::Executor& executor, executor::OwnerId owner) {
  auto task = std::make_shared<DurabilityTimeoutTask>(*impl_, owner);
  MutexLock lock(impl_->mutex);
  impl_->executor = &executor;
  impl_->task_id = executor.schedule(std::move(task), executor::kForever);
  impl_->aimed_ms = executor::kNeverMs;
}

void DurabilityMonitor::add(uint16_t vbucket, uint64_t seqno, std::string key, uint64_t cas,
                            int64_t deadline_ms, SyncWriteWaiter waiter) {
  if (vbucket >= impl_->vbuckets.size()) {
    throw std::out_of_range("DurabilityMonitor::add: no such vbucket");
  }
  {
    MutexLock lock(impl_->mutex);
    // Checked under the lock that on_persisted() takes after the flusher advanced the seqno:
    // either this sees the new persisted seqno, or on_persisted() sees this write.
    if (impl_->vbuckets[vbucket].persisted_seqno() < seqno) {
      impl_->pending_by_vbucket[vbucket].emplace(
          seqno, Entry{std::move(key), cas, deadline_ms, std::move(waiter)});
      impl_->vbuckets_with_writes.insert(vbucket);
      impl_->deadlines.emplace(deadline_ms, vbucket, seqno);
      ++impl_->pending;
      if (deadline_ms < impl_->aimed_ms && impl_->executor) {
        // Under the lock: two re-aims posted in the other order would leave the later one.
        impl_->aimed_ms = deadline_ms;
        const double seconds = seconds_until(deadline_ms, impl_->clock.steady_ms());
        if (impl_->snooze_mode == SnoozeMode::Async) {
          impl_->executor->snooze(impl_->task_id, seconds);
        } else {
          impl_->executor->snooze_and_wait(impl_->task_id, seconds);
        }
      }
      return;
    }
  }
  std::vector<Completion> done;
  done.push_back({std::move(key), cas, std::move(waiter)});
  impl_->complete(done);
}

void DurabilityMonitor::on_persisted() {
  std::vector<Completion> done;
  {
    MutexLock lock(impl_->mutex);
    // take_persisted() may erase the vbucket it is given from the set.
    for (auto it = impl_->vbuckets_with_writes.begin();
         it != impl_->vbuckets_with_writes.end();) {
      const uint16_t vbucket = *it++;
      impl_->take_persisted(vbucket, done);
    }
  }
  impl_->complete(done);
}

int64_t DurabilityMonitor::expire_due() { return impl_->expire_due({}); }

uint64_t DurabilityMonitor::pending() const {
  MutexLock lock(impl_->mutex);
  return impl_->pending;
}

}  // namespace tern::engine
