// Couchbase kv_engine's TimeoutAddCancel, against ExecutorPool: every benchmark thread owns
// Timeouts/threads tasks that sleep until woken, and each iteration snoozes the thread's
// next task (round robin) by a random 10-30 s, as a connection re-arming its timeout would.
//   TimeoutAddCancel_Snooze         asynchronous snooze(): the cost to the caller
//   TimeoutAddCancel_SnoozeAndWait  snooze_and_wait(): a round trip to the scheduler each
//   TimeoutAddCancel_SnoozeDrained  snooze(), with every timed batch ending in a barrier, so
//                                   the time also covers the scheduler applying them all

#include <benchmark/benchmark.h>

#include <atomic>
#include <memory>
#include <random>
#include <vector>

#include "executor/executor_pool.h"

namespace tern::executor {
namespace {

// Sleeps until woken; these benchmarks only move its waketime, so it never runs.
class TimeoutTask final : public Task {
 public:
  explicit TimeoutTask(OwnerId owner) : Task(TaskType::NonIO, "timeout", owner) {}
  bool run() override {
    snooze(kForever);
    return true;
  }
};

ExecutorPool& shared_pool() {
  static ExecutorPool pool(PoolConfig{.threads = {1, 1, 1, 1}});
  return pool;
}

// One benchmark thread's tasks, scheduled before timing starts and removed after it ends.
class ThreadTimeouts {
 public:
  explicit ThreadTimeouts(const benchmark::State& state)
      : owner_(next_owner_.fetch_add(1)), random_(static_cast<unsigned>(owner_)) {
    const auto count = static_cast<size_t>(state.range(0) / state.threads());
    ids_.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      ids_.push_back(shared_pool().schedule(std::make_shared<TimeoutTask>(owner_), kForever));
    }
    shared_pool().barrier();
  }
  ~ThreadTimeouts() { shared_pool().unregister(owner_); }

  TaskId next() {
    const TaskId id = ids_[cursor_];
    cursor_ = cursor_ + 1 == ids_.size() ? 0 : cursor_ + 1;
    return id;
  }
  double timeout_seconds() { return seconds_(random_); }

 private:
  static inline std::atomic<OwnerId> next_owner_{1};
  const OwnerId owner_;
  std::vector<TaskId> ids_;
  size_t cursor_ = 0;
  std::minstd_rand random_;
  std::uniform_real_distribution<double> seconds_{10.0, 30.0};
};

void TimeoutAddCancel_Snooze(benchmark::State& state) {
  ThreadTimeouts timeouts(state);
  ExecutorPool& pool = shared_pool();
  for (auto _ : state) pool.snooze(timeouts.next(), timeouts.timeout_seconds());
  state.SetItemsProcessed(state.iterations());
  pool.barrier();  // untimed: leave no backlog to the next benchmark
}

void TimeoutAddCancel_SnoozeAndWait(benchmark::State& state) {
  ThreadTimeouts timeouts(state);
  ExecutorPool& pool = shared_pool();
  for (auto _ : state) {
    benchmark::DoNotOptimize(pool.snooze_and_wait(timeouts.next(), timeouts.timeout_seconds()));
  }
  state.SetItemsProcessed(state.iterations());
}

void TimeoutAddCancel_SnoozeDrained(benchmark::State& state) {
  constexpr benchmark::IterationCount kBatch = 1024;
  ThreadTimeouts timeouts(state);
  ExecutorPool& pool = shared_pool();
  while (state.KeepRunningBatch(kBatch)) {
    for (benchmark::IterationCount i = 0; i < kBatch; ++i) {
      pool.snooze(timeouts.next(), timeouts.timeout_seconds());
    }
    pool.barrier();
  }
  state.SetItemsProcessed(state.iterations());
}

void timeouts_args(benchmark::internal::Benchmark* bench) {
  bench->ArgName("Timeouts")->Arg(1000)->Arg(4096)->Arg(30000)->ThreadRange(1, 16)->UseRealTime();
}

BENCHMARK(TimeoutAddCancel_Snooze)->Apply(timeouts_args);
BENCHMARK(TimeoutAddCancel_SnoozeAndWait)->Apply(timeouts_args);
BENCHMARK(TimeoutAddCancel_SnoozeDrained)->Apply(timeouts_args);

}  // namespace
}  // namespace tern::executor

BENCHMARK_MAIN();
