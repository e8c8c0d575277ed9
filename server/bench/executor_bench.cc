// Couchbase kv_engine's TimeoutAddCancel, against ExecutorPool: every benchmark thread owns
// Timeouts/threads tasks that sleep until woken, and each iteration snoozes the thread's
// next task (round robin) by a random 10-30 s, as a connection re-arming its timeout would.
//   TimeoutAddCancel_Snooze         asynchronous snooze(): the cost to the caller
//   TimeoutAddCancel_SnoozeAndWait  snooze_and_wait(): a round trip to the scheduler each
//   TimeoutAddCancel_SnoozeDrained  snooze(), with every timed batch ending in a barrier, so
//                                   the time also covers the scheduler applying them all
// And, on one thread, what the scheduler's side of a snooze costs with two timer designs:
//   SchedulerSnooze_TaskTable       the pool's TaskTable (indexed heap, lazy push-back)
//   SchedulerSnooze_AsioTimer       one asio steady_timer per task, re-armed per snooze

#include <benchmark/benchmark.h>

#include <asio.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <system_error>
#include <vector>

#include "executor/executor_pool.h"
#include "executor/task_table.h"

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

double random_timeout_seconds(std::minstd_rand& random) {
  return std::uniform_real_distribution<double>(10.0, 30.0)(random);
}

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
  double timeout_seconds() { return random_timeout_seconds(random_); }

 private:
  static inline std::atomic<OwnerId> next_owner_{1};
  const OwnerId owner_;
  std::vector<TaskId> ids_;
  size_t cursor_ = 0;
  std::minstd_rand random_;
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

// Both timer benchmarks let due work run every kBatch snoozes, as the scheduler does
// between batches of requests.
constexpr int kSchedulerBatch = 1024;

void SchedulerSnooze_TaskTable(benchmark::State& state) {
  const auto count = static_cast<TaskId>(state.range(0));
  TaskTable table(SystemClock::instance(), [](const std::shared_ptr<Task>&) {});
  for (TaskId id = 1; id <= count; ++id) {
    auto task = std::make_shared<TimeoutTask>(kServerOwner);
    TaskTable::claim(*task, id);
    table.add(std::move(task), kForever);
  }
  std::minstd_rand random(1);
  TaskId next = 0;
  for (auto _ : state) {
    table.snooze(next + 1, random_timeout_seconds(random));
    next = next + 1 == count ? 0 : next + 1;
    if (next % kSchedulerBatch == 0) benchmark::DoNotOptimize(table.dispatch_due());
  }
  state.SetItemsProcessed(state.iterations());
}

void SchedulerSnooze_AsioTimer(benchmark::State& state) {
  const auto count = static_cast<size_t>(state.range(0));
  asio::io_context io;
  std::vector<std::unique_ptr<asio::steady_timer>> timers;
  auto on_timer = [](std::error_code) {};
  for (size_t i = 0; i < count; ++i) {
    timers.push_back(std::make_unique<asio::steady_timer>(io));
    timers.back()->expires_at(asio::steady_timer::time_point::max());
    timers.back()->async_wait(on_timer);
  }
  std::minstd_rand random(1);
  size_t next = 0;
  for (auto _ : state) {
    asio::steady_timer& timer = *timers[next];
    // Re-arming cancels the pending wait, whose handler then runs with operation_aborted.
    timer.expires_after(std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<double>(random_timeout_seconds(random))));
    timer.async_wait(on_timer);
    next = next + 1 == count ? 0 : next + 1;
    if (next % kSchedulerBatch == 0) io.poll();
  }
  io.poll();
  state.SetItemsProcessed(state.iterations());
}

void timeouts_args(benchmark::internal::Benchmark* bench) {
  bench->ArgName("Timeouts")->Arg(1000)->Arg(4096)->Arg(30000)->ThreadRange(1, 16)->UseRealTime();
}

BENCHMARK(TimeoutAddCancel_Snooze)->Apply(timeouts_args);
BENCHMARK(TimeoutAddCancel_SnoozeAndWait)->Apply(timeouts_args);
BENCHMARK(TimeoutAddCancel_SnoozeDrained)->Apply(timeouts_args);
BENCHMARK(SchedulerSnooze_TaskTable)->ArgName("Timeouts")->Arg(30000);
BENCHMARK(SchedulerSnooze_AsioTimer)->ArgName("Timeouts")->Arg(30000);

}  // namespace
}  // namespace tern::executor

BENCHMARK_MAIN();
