#pragma once
// Runs Tasks in the background: each when its waketime comes, on a worker of its type.
// Two implementations share this contract and the same scheduling rules (TaskTable):
// ExecutorPool (threads, real time) and ManualExecutor (tests: one thread, a ManualClock).
//
// Rules: a task is never queued or run twice at once; a wake that arrives while the task
// runs makes it run again as soon as the run ends; a wake, snooze or cancel naming a task
// that is cancelled or has ended does nothing. Every method may be called from inside a
// task's run(), except unregister() for the running task's own owner (it would wait for
// itself). ExecutorPool's methods are thread-safe; ManualExecutor's are single-threaded.

#include <array>
#include <memory>
#include <string>

#include "executor/task.h"

namespace tern::executor {

class Executor {
 public:
  virtual ~Executor() = default;

  // Takes a share of the task and returns its id; its first run is delay_seconds from now
  // (kForever: only when woken). Throws std::invalid_argument if the task was scheduled before.
  virtual TaskId schedule(std::shared_ptr<Task> task, double delay_seconds) = 0;
  TaskId schedule(std::shared_ptr<Task> task) { return schedule(std::move(task), 0); }

  // Stops the task: it never starts again (a run in progress is allowed to finish).
  // Returns whether a live task had this id.
  virtual bool cancel(TaskId id) = 0;

  // Asynchronous: request and return at once; the scheduler applies requests in the order
  // they were made.
  virtual void wake(TaskId id) = 0;                    // run now
  virtual void snooze(TaskId id, double seconds) = 0;  // next run `seconds` from now

  // The same, but wait until applied; return whether a live task had this id.
  virtual bool wake_and_wait(TaskId id) = 0;
  virtual bool snooze_and_wait(TaskId id, double seconds) = 0;

  // Cancels every task of the owner and waits until none of them is running; afterwards
  // nothing the owner scheduled before this call runs again.
  virtual void unregister(OwnerId owner) = 0;

  // Waits until every request made before this call (by any thread) has been applied.
  virtual void barrier() = 0;

  // For STAT tasks: see TaskTable::tasks_json().
  virtual std::string tasks_json() = 0;
  // For STAT workers: {"reader":{"threads":N,"running":M},"writer":...,"auxio":...,"nonio":...}
  virtual std::string workers_json() = 0;
  // What the tasks of each type cost so far, indexed by TaskType (for /metrics).
  virtual std::array<TaskTypeTotals, kTaskTypeCount> task_totals() const = 0;
};

}  // namespace tern::executor
