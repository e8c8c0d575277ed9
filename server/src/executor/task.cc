#include "executor/task.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <exception>

namespace tern::executor {

std::string_view task_type_name(TaskType type) {
  switch (type) {
    case TaskType::Reader:
      return "reader";
    case TaskType::Writer:
      return "writer";
    case TaskType::AuxIO:
      return "auxio";
    case TaskType::NonIO:
      return "nonio";
  }
  return "unknown";
}

std::string_view task_state_name(TaskState state) {
  switch (state) {
    case TaskState::Running:
      return "running";
    case TaskState::Snoozed:
      return "snoozed";
    case TaskState::Dead:
      return "dead";
  }
  return "unknown";
}

Task::Task(TaskType type, std::string description, OwnerId owner, int64_t max_expected_ms)
    : type_(type),
      description_(std::move(description)),
      owner_(owner),
      max_expected_ms_(max_expected_ms) {}

void Task::snooze(double seconds) {
  waketime_ms_.store(waketime_after(clock_->steady_ms(), seconds), std::memory_order_release);
}

std::array<TaskTypeTotals, kTaskTypeCount> totals_of(const TaskTypeCounterSet& counters) {
  std::array<TaskTypeTotals, kTaskTypeCount> totals;
  for (size_t type = 0; type < kTaskTypeCount; ++type) totals[type] = counters[type].totals();
  return totals;
}

int64_t waketime_after(int64_t now_ms, double seconds) {
  // Also rejects NaN: a snooze that cannot be read as a time sleeps until woken.
  if (!(seconds < 1e12)) return kNeverMs;
  if (seconds <= 0) return now_ms;
  return now_ms + static_cast<int64_t>(std::ceil(seconds * 1000.0));
}

bool run_once(Task& task, const std::function<int64_t()>& now_us, TaskTypeCounterSet* totals) {
  // Cancelled while it waited for a worker.
  if (task.state() == TaskState::Dead) return false;
  // Wakes that arrived before this run are served by it; later ones make it run again.
  task.wake_requested_.store(false, std::memory_order_relaxed);
  const int64_t start = now_us();
  const int64_t waketime_ms = task.waketime_ms();
  const int64_t wait_us =
      waketime_ms == kNeverMs ? 0 : std::max<int64_t>(0, start - waketime_ms * 1000);
  bool again = false;
  try {
    again = task.run();
  } catch (const std::exception& e) {
    spdlog::error("task {} '{}' threw and is stopped: {}", task.id(), task.description(), e.what());
  } catch (...) {
    spdlog::error("task {} '{}' threw and is stopped", task.id(), task.description());
  }
  const int64_t runtime = now_us() - start;

  task.runs_.fetch_add(1, std::memory_order_relaxed);
  if (totals != nullptr) {
    (*totals)[static_cast<size_t>(task.type())].add(static_cast<uint64_t>(runtime),
                                                    static_cast<uint64_t>(wait_us));
  }
  task.total_runtime_us_.fetch_add(runtime, std::memory_order_relaxed);
  if (runtime > task.max_runtime_us_.load(std::memory_order_relaxed)) {
    task.max_runtime_us_.store(runtime, std::memory_order_relaxed);  // one run at a time
  }
  if (runtime > task.max_expected_ms() * 1000) {
    spdlog::warn("slow task {} '{}' ({}): ran {} ms, expected at most {} ms", task.id(),
                 task.description(), task_type_name(task.type()), runtime / 1000,
                 task.max_expected_ms());
  }
  return again;
}

}  // namespace tern::executor
