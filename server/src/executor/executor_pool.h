#pragma once
// The server's executor: one scheduler thread owns every task's scheduling state and all
// deadlines (a TaskTable, so no locks on it), and per-type worker threads run the tasks.
// Callers talk to the scheduler through a request inbox; the asynchronous calls only post.

#include <array>
#include <atomic>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "executor/executor.h"
#include "executor/request_inbox.h"
#include "executor/task_table.h"
#include "executor/worker_group.h"

namespace tern::executor {

struct PoolConfig {
  // Worker threads per TaskType, indexed by the enum's value; 0 is taken as 1.
  std::array<size_t, kTaskTypeCount> threads{1, 1, 1, 2};
};

class ExecutorPool final : public Executor {
 public:
  explicit ExecutorPool(PoolConfig config = {});
  // Cancels every task, lets runs in progress finish and joins all threads.
  ~ExecutorPool() override;
  ExecutorPool(const ExecutorPool&) = delete;
  ExecutorPool& operator=(const ExecutorPool&) = delete;

  using Executor::schedule;
  TaskId schedule(std::shared_ptr<Task> task, double delay_seconds) override;
  bool cancel(TaskId id) override;
  void wake(TaskId id) override;
  void snooze(TaskId id, double seconds) override;
  bool wake_and_wait(TaskId id) override;
  bool snooze_and_wait(TaskId id, double seconds) override;
  void unregister(OwnerId owner) override;
  void barrier() override;
  std::string tasks_json() override;
  std::string workers_json() override;
  std::array<TaskTypeTotals, kTaskTypeCount> task_totals() const override;

 private:
  void schedule_loop();
  void apply(Request& request);
  void release_unregister_waiters();
  bool post_and_wait(Request&& request);
  void dispatch(const std::shared_ptr<Task>& task);

  RequestInbox inbox_;
  std::atomic<TaskId> next_id_{1};
  TaskTypeCounterSet totals_;  // before the workers, who add to it
  std::array<std::unique_ptr<WorkerGroup>, kTaskTypeCount> workers_;

  // Owned by the scheduler thread.
  TaskTable table_;
  std::vector<std::pair<OwnerId, Completion*>> unregister_waiters_;

  std::thread scheduler_;
};

}  // namespace tern::executor
