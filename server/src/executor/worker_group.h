#pragma once
// The worker threads of one task type and their queue of due tasks.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "executor/task.h"

namespace tern::executor {

class WorkerGroup {
 public:
  // Called on a worker thread for each pushed task.
  using Runner = std::function<void(const std::shared_ptr<Task>&)>;

  WorkerGroup(TaskType type, size_t thread_count, Runner runner);
  // Lets runs in progress finish, drops queued tasks and joins the threads.
  ~WorkerGroup();
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  void push(std::shared_ptr<Task> task);

  size_t thread_count() const { return threads_.size(); }
  size_t running() const { return running_.load(std::memory_order_relaxed); }

 private:
  void work();

  Runner runner_;
  Mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::shared_ptr<Task>> queue_ TERN_GUARDED_BY(mutex_);
  bool stopping_ TERN_GUARDED_BY(mutex_) = false;
  std::atomic<size_t> running_{0};
  std::vector<std::thread> threads_;
};

}  // namespace tern::executor
