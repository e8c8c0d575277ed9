#include "executor/manual_executor.h"

#include <algorithm>

#include "executor/stats_json.h"

namespace tern::executor {

ManualExecutor::ManualExecutor(ManualClock& clock)
    : clock_(clock),
      table_(clock, [this](const std::shared_ptr<Task>& task) { ready_.push_back(task); }) {}

size_t ManualExecutor::ready_count() {
  table_.dispatch_due();
  return std::count_if(ready_.begin(), ready_.end(), [](const std::shared_ptr<Task>& task) {
    return task->state() != TaskState::Dead;
  });
}

size_t ManualExecutor::run_ready() {
  table_.dispatch_due();
  const auto now_us = [this] { return clock_.steady_ms() * 1000; };
  size_t runs = 0;
  for (size_t queued = ready_.size(); queued > 0; --queued) {
    std::shared_ptr<Task> task = std::move(ready_.front());
    ready_.pop_front();
    const uint64_t runs_before = task->run_count();
    const bool again = run_once(*task, now_us, &totals_);
    runs += task->run_count() - runs_before;
    table_.finished(task->id(), again);
  }
  return runs;
}

TaskId ManualExecutor::schedule(std::shared_ptr<Task> task, double delay_seconds) {
  const TaskId id = next_id_++;
  TaskTable::claim(*task, id);
  table_.add(std::move(task), delay_seconds);
  return id;
}

bool ManualExecutor::cancel(TaskId id) { return table_.cancel(id); }

void ManualExecutor::wake(TaskId id) { table_.wake(id); }

void ManualExecutor::snooze(TaskId id, double seconds) { table_.snooze(id, seconds); }

bool ManualExecutor::wake_and_wait(TaskId id) { return table_.wake(id); }

bool ManualExecutor::snooze_and_wait(TaskId id, double seconds) {
  return table_.snooze(id, seconds);
}

void ManualExecutor::unregister(OwnerId owner) { table_.cancel_owner(owner); }

std::string ManualExecutor::tasks_json() { return table_.tasks_json(); }

std::array<TaskTypeTotals, kTaskTypeCount> ManualExecutor::task_totals() const {
  return totals_of(totals_);
}

std::string ManualExecutor::workers_json() {
  std::array<WorkerCounts, kTaskTypeCount> counts;
  counts.fill({.threads = 1, .running = 0});
  return executor::workers_json(counts);
}

}  // namespace tern::executor
