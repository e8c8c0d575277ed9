#pragma once
// The ExecutorPool's requests to its scheduler thread: any thread posts, the scheduler takes
// them in batches. Posting costs one short critical section and wakes the scheduler only
// if it is asleep. The backlog is bounded: a poster that outruns the scheduler by
// kMaxPending requests waits for it, so memory stays bounded (about 4 MB).

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "executor/completion.h"
#include "executor/task.h"

namespace tern::executor {

struct Request {
  enum class Kind : uint8_t { Add, Wake, Snooze, Cancel, Unregister, Finished, Barrier, TasksJson };
  Kind kind = Kind::Barrier;
  bool again = false;     // Finished: what run() returned
  TaskId id = 0;          // Wake, Snooze, Cancel, Finished
  double seconds = 0;     // Add (the delay), Snooze
  OwnerId owner = 0;      // Unregister
  std::shared_ptr<Task> task{};  // Add
  Completion* done = nullptr;    // set when the poster waits for the result
  std::string* text = nullptr;   // TasksJson: where the answer goes
};

class RequestInbox {
 public:
  static constexpr size_t kMaxPending = size_t{1} << 16;

  // Returns false, dropping the request, once closed. Never call it from the taker's thread.
  bool post(Request&& request);

  // Swaps the waiting requests into `batch` (which must be empty), first sleeping until
  // there are some or the steady-clock deadline_ms passes. Returns false once closed and
  // every request posted before close() has been taken.
  bool take(std::vector<Request>& batch, int64_t deadline_ms);

  // Refuses further posts; take() returns false once the backlog is taken.
  void close();

  // How many posters are waiting for room right now; lets tests see a poster blocked.
  size_t blocked_posters();

 private:
  Mutex mutex_;
  std::condition_variable arrived_;
  std::condition_variable drained_;
  std::vector<Request> pending_ TERN_GUARDED_BY(mutex_);
  // The taker waits on arrived_ and nobody has notified it yet.
  bool sleeping_ TERN_GUARDED_BY(mutex_) = false;
  size_t blocked_posters_ TERN_GUARDED_BY(mutex_) = 0;  // posters waiting on drained_ for room
  bool closed_ TERN_GUARDED_BY(mutex_) = false;
};

}  // namespace tern::executor
