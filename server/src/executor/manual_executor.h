#pragma once
// An Executor for unit tests: no threads and no real time. Tasks run only inside
// run_ready(), one at a time on the caller's thread, and waketimes follow a ManualClock the
// test advances. Scheduling follows the same rules as ExecutorPool (both use TaskTable), so
// task logic tested here behaves the same in the server. Not thread-safe.

#include <deque>
#include <memory>

#include "common/clock.h"
#include "executor/executor.h"
#include "executor/task_table.h"

namespace tern::executor {

class ManualExecutor final : public Executor {
 public:
  explicit ManualExecutor(ManualClock& clock);

  // Runs every task that is due now, each once (skipping cancelled ones); tasks that become due during these runs
  // (woken, or returning true without a snooze) wait for the next call. Returns the number
  // of runs. Runtimes are measured on the ManualClock, so a run that advances it is "slow".
  size_t run_ready();

  // How many tasks the next run_ready() would run.
  size_t ready_count();

  using Executor::schedule;
  TaskId schedule(std::shared_ptr<Task> task, double delay_seconds) override;
  bool cancel(TaskId id) override;
  void wake(TaskId id) override;
  void snooze(TaskId id, double seconds) override;
  bool wake_and_wait(TaskId id) override;
  bool snooze_and_wait(TaskId id, double seconds) override;
  void unregister(OwnerId owner) override;
  void barrier() override {}
  std::string tasks_json() override;
  // Reports one thread per type: run_ready()'s caller.
  std::string workers_json() override;
  std::array<TaskTypeTotals, kTaskTypeCount> task_totals() const override;

 private:
  ManualClock& clock_;
  TaskId next_id_ = 1;
  std::deque<std::shared_ptr<Task>> ready_;
  TaskTypeCounterSet totals_;
  TaskTable table_;
};

}  // namespace tern::executor
