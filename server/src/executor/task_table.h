#pragma once
// The scheduling state of an executor: every live task, its deadline, and whether it is
// queued or running. Decides when each task runs; something else runs it (worker threads,
// or a test's own thread) and reports back through finished().
//
// Not thread-safe: one thread owns it (the scheduler thread of an ExecutorPool).
// Guarantees: a task is handed out at most once until finished() reports it back; a wake
// that arrives while the task is out makes it run again at once; requests naming a task that
// is cancelled or ended are ignored; a cancelled task is never handed out again.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "common/clock.h"
#include "executor/task.h"
#include "executor/timer_heap.h"

namespace tern::executor {

class TaskTable {
 public:
  // Receives each task that is due; it must eventually be reported to finished().
  using Dispatch = std::function<void(const std::shared_ptr<Task>&)>;

  TaskTable(const Clock& clock, Dispatch dispatch);
  ~TaskTable();
  TaskTable(const TaskTable&) = delete;
  TaskTable& operator=(const TaskTable&) = delete;

  // Gives the task its id on the scheduling caller's thread; throws std::invalid_argument
  // if it was scheduled before (a task object is scheduled once).
  static void claim(Task& task, TaskId id);

  // Adds a claimed task; it first runs delay_seconds from now (kForever: when woken).
  void add(std::shared_ptr<Task> task, double delay_seconds);

  // Each returns false, doing nothing, if no live task has this id.
  bool wake(TaskId id);
  bool snooze(TaskId id, double seconds);
  bool cancel(TaskId id);  // a run in progress finishes, but the task never runs again

  // Cancels every task of the owner.
  void cancel_owner(OwnerId owner);
  // How many tasks of the owner are handed out and not yet finished.
  size_t busy_count(OwnerId owner) const;

  // A handed-out task's run ended; again is what run() returned.
  void finished(TaskId id, bool again);

  // Hands out every task whose waketime has come. Returns the next waketime (kNeverMs: none).
  int64_t dispatch_due();

  // {"tasks":[{id, description, owner, type, state, waketime_ms, runs, max_runtime_us,
  //  total_runtime_us}, ...]} in id order; waketime_ms is -1 for "until woken".
  std::string tasks_json() const;

  size_t size() const { return records_.size(); }

 private:
  struct Record : TimerNode {
    std::shared_ptr<Task> task;
    bool busy = false;       // handed out, not yet finished
    bool cancelled = false;  // dead; erased once no longer busy
  };
  Record* find(TaskId id);
  void dispatch(Record& record);
  void sleep_until_waketime(Record& record);
  void erase(Record& record);

  const Clock& clock_;
  Dispatch dispatch_;
  TimerHeap timers_;
  std::unordered_map<TaskId, Record> records_;  // node-based: records never move
  std::unordered_map<OwnerId, size_t> busy_by_owner_;
};

}  // namespace tern::executor
