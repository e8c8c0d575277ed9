// The durability timeout path (issue 11), against a real ExecutorPool: every benchmark thread
// adds durable writes (each on its own vbucket, numbered by it) to one DurabilityMonitor, and a
// flusher-like thread persists them every millisecond, as group commit would, committing them
// through on_persisted(). The engine is a real persistent one; the writes were never prepared
// in it, so each commit is a miss in its table: what is timed is the monitor and the executor.
//   DurabilityTimeout_Snooze         every write's deadline is earlier than all before it, so
//                                    every add() re-aims the timeout task: asynchronous snooze()
//   DurabilityTimeout_SnoozeAndWait  the same, with snooze_and_wait(): a round trip to the
//                                    scheduler per write
//   DurabilityTimeout_NoReaim        later deadlines, as a server mostly sees (now + timeout):
//                                    no re-aim at all, what the monitor costs by itself

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <thread>

#include "cluster/vbucket_of.h"
#include "common/clock.h"
#include "engine/durability_monitor.h"
#include "engine/engine.h"
#include "engine/vbucket.h"
#include "executor/executor_pool.h"

namespace tern::engine {
namespace {

enum class Deadlines { Earlier, Later };

executor::ExecutorPool& shared_pool() {
  static executor::ExecutorPool pool(executor::PoolConfig{.threads = {1, 1, 1, 1}});
  return pool;
}

// One benchmark run's bucket: built by thread 0 before timing starts (the benchmark's start
// barrier orders it before every thread's first iteration), torn down after timing ends.
class Rig {
 public:
  // Benchmark threads use vbuckets 0 to kMaxThreads - 1, one each.
  static constexpr uint16_t kMaxThreads = 64;

  Rig(SnoozeMode mode, Deadlines deadlines)
      : engine_(persistent_config()),
        vbuckets_(new VBucket[cluster::kVBucketCount]),
        monitor_(engine_, {vbuckets_.get(), cluster::kVBucketCount}, SystemClock::instance(),
                 mode),
        owner_(next_owner_.fetch_add(1)),
        step_ms_(deadlines == Deadlines::Earlier ? -1 : 1),
        // Far enough ahead that no deadline passes during the run, either way.
        next_deadline_ms_(SystemClock::instance().steady_ms() + 1'000'000'000) {
    monitor_.start(shared_pool(), owner_);
    flusher_ = std::thread([this] { flush_until_stopped(); });
  }

  ~Rig() {
    stop_.store(true);
    flusher_.join();
    shared_pool().unregister(owner_);
  }

  // One durable write on the thread's vbucket.
  void add(uint16_t vbucket) {
    const uint64_t seqno = vbuckets_[vbucket].record_mutation();
    const int64_t deadline = next_deadline_ms_.fetch_add(step_ms_, std::memory_order_relaxed);
    monitor_.add(vbucket, seqno, "key", seqno, deadline, [this](SyncWriteOutcome) {
      completed_.fetch_add(1, std::memory_order_relaxed);
    });
  }

  uint64_t completed() const { return completed_.load(); }

 private:
  static Config persistent_config() {
    Config config;
    config.persistent = true;
    return config;
  }

  // Persists whatever every vbucket the threads use has numbered, once a millisecond.
  void flush_until_stopped() {
    while (!stop_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      for (uint16_t vb = 0; vb < kMaxThreads; ++vb) {
        vbuckets_[vb].set_persisted_seqno(vbuckets_[vb].high_seqno());
      }
      monitor_.on_persisted();
    }
  }

  static inline std::atomic<executor::OwnerId> next_owner_{1};
  Engine engine_;
  std::unique_ptr<VBucket[]> vbuckets_;
  DurabilityMonitor monitor_;
  const executor::OwnerId owner_;
  const int64_t step_ms_;
  std::atomic<int64_t> next_deadline_ms_;
  std::atomic<uint64_t> completed_{0};
  std::atomic<bool> stop_{false};
  std::thread flusher_;
};

std::unique_ptr<Rig> rig;

void run(benchmark::State& state, SnoozeMode mode, Deadlines deadlines) {
  if (state.thread_index() == 0) rig = std::make_unique<Rig>(mode, deadlines);
  const auto vbucket = static_cast<uint16_t>(state.thread_index());
  for (auto _ : state) rig->add(vbucket);
  state.SetItemsProcessed(state.iterations());
  if (state.thread_index() == 0) {
    state.counters["completed"] = static_cast<double>(rig->completed());
    rig.reset();
  }
}

void DurabilityTimeout_Snooze(benchmark::State& state) {
  run(state, SnoozeMode::Async, Deadlines::Earlier);
}
void DurabilityTimeout_SnoozeAndWait(benchmark::State& state) {
  run(state, SnoozeMode::Wait, Deadlines::Earlier);
}
void DurabilityTimeout_NoReaim(benchmark::State& state) {
  run(state, SnoozeMode::Async, Deadlines::Later);
}

void threads_args(benchmark::internal::Benchmark* bench) {
  bench->ThreadRange(1, 8)->UseRealTime();
}

BENCHMARK(DurabilityTimeout_Snooze)->Apply(threads_args);
BENCHMARK(DurabilityTimeout_SnoozeAndWait)->Apply(threads_args);
BENCHMARK(DurabilityTimeout_NoReaim)->Apply(threads_args);

}  // namespace
}  // namespace tern::engine

BENCHMARK_MAIN();
