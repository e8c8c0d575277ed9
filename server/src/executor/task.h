#pragma once
// A unit of background work run by an Executor: a pager, a flusher, a compactor.
// Subclasses implement run(); the executor decides when and on which worker it runs.

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace tern::executor {

// Which worker pool runs the task; each type has its own threads so that slow disk work
// cannot starve memory-only work.
enum class TaskType : uint8_t { Reader, Writer, AuxIO, NonIO };
inline constexpr size_t kTaskTypeCount = 4;
std::string_view task_type_name(TaskType type);

// Running covers both "queued for a worker" and "on a worker now".
enum class TaskState : uint8_t { Running, Snoozed, Dead };
std::string_view task_state_name(TaskState state);

// Identifies who a task belongs to (a bucket, or the server core) so that all of its tasks
// can be removed at once. Opaque to the executor: a bucket may pass its address.
using OwnerId = uint64_t;
inline constexpr OwnerId kServerOwner = 0;

// What the tasks of one type cost, since the executor started (tasks that ended included).
struct TaskTypeTotals {
  uint64_t runs = 0;
  uint64_t runtime_us = 0;
  // From each run's waketime (when it was due, or woken) to its start: the wait for a worker.
  uint64_t wait_us = 0;
};

// The same, kept by an executor as its workers run tasks. Thread-safe.
class TaskTypeCounters {
 public:
  void add(uint64_t runtime_us, uint64_t wait_us) {
    runs_.fetch_add(1, std::memory_order_relaxed);
    runtime_us_.fetch_add(runtime_us, std::memory_order_relaxed);
    wait_us_.fetch_add(wait_us, std::memory_order_relaxed);
  }
  TaskTypeTotals totals() const {
    return {.runs = runs_.load(std::memory_order_relaxed),
            .runtime_us = runtime_us_.load(std::memory_order_relaxed),
            .wait_us = wait_us_.load(std::memory_order_relaxed)};
  }

 private:
  std::atomic<uint64_t> runs_{0};
  std::atomic<uint64_t> runtime_us_{0};
  std::atomic<uint64_t> wait_us_{0};
};
using TaskTypeCounterSet = std::array<TaskTypeCounters, kTaskTypeCount>;
std::array<TaskTypeTotals, kTaskTypeCount> totals_of(const TaskTypeCounterSet& counters);

// Handed out by schedule(); never 0 and never reused within one executor.
using TaskId = uint64_t;

// A snooze this long means "until woken".
inline constexpr double kForever = std::numeric_limits<double>::infinity();
// The waketime of a task that sleeps until woken.
inline constexpr int64_t kNeverMs = std::numeric_limits<int64_t>::max();

class Task {
 public:
  // A run longer than max_expected_ms is logged as slow.
  Task(TaskType type, std::string description, OwnerId owner, int64_t max_expected_ms = 100);
  virtual ~Task() = default;
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  // Does one unit of work. Returns true to run again: at once, or at the waketime set by a
  // snooze() during this run. Returns false to end the task.
  virtual bool run() = 0;

  TaskType type() const { return type_; }
  const std::string& description() const { return description_; }
  OwnerId owner() const { return owner_; }
  int64_t max_expected_ms() const { return max_expected_ms_; }

  // 0 until scheduled.
  TaskId id() const { return id_.load(std::memory_order_relaxed); }
  TaskState state() const { return state_.load(std::memory_order_acquire); }
  // Steady-clock milliseconds (common/clock.h); kNeverMs while sleeping until woken.
  int64_t waketime_ms() const { return waketime_ms_.load(std::memory_order_acquire); }

  uint64_t run_count() const { return runs_.load(std::memory_order_relaxed); }
  int64_t max_runtime_us() const { return max_runtime_us_.load(std::memory_order_relaxed); }
  int64_t total_runtime_us() const { return total_runtime_us_.load(std::memory_order_relaxed); }

 protected:
  // Call from run(): the next run happens `seconds` from now, to the millisecond (kForever:
  // only when woken).
  // A wake that arrives during the run still wins and runs the task again at once.
  void snooze(double seconds);

 private:
  friend class TaskTable;
  friend bool run_once(Task& task, const std::function<int64_t()>& now_us,
                       TaskTypeCounterSet* totals);

  const TaskType type_;
  const std::string description_;
  const OwnerId owner_;
  const int64_t max_expected_ms_;
  const Clock* clock_ = &SystemClock::instance();  // set by the executor before scheduling

  std::atomic<TaskId> id_{0};
  std::atomic<TaskState> state_{TaskState::Snoozed};
  std::atomic<int64_t> waketime_ms_{0};
  // Set by a wake that arrives while the task is queued or running; the next run consumes it.
  std::atomic<bool> wake_requested_{false};

  std::atomic<uint64_t> runs_{0};
  std::atomic<int64_t> max_runtime_us_{0};
  std::atomic<int64_t> total_runtime_us_{0};
};

// The steady-clock waketime `seconds` after now_ms (kNeverMs for kForever or overflow).
int64_t waketime_after(int64_t now_ms, double seconds);

// Runs the task once on this thread (unless it was cancelled: then returns false at once), records
// its runtime (measured with now_us) in the task's stats, and its runtime and wait since its
// waketime in `totals` (if given) under its type, and logs the run if it was slow. Returns run()'s
// answer; an exception thrown by run() is logged and ends the task.
bool run_once(Task& task, const std::function<int64_t()>& now_us,
              TaskTypeCounterSet* totals = nullptr);

}  // namespace tern::executor
