#include "executor/worker_group.h"

#include <pthread.h>

#include <string>

namespace tern::executor {

WorkerGroup::WorkerGroup(TaskType type, size_t thread_count, Runner runner)
    : runner_(std::move(runner)) {
  threads_.reserve(thread_count);
  for (size_t i = 0; i < thread_count; ++i) {
    threads_.emplace_back([this] { work(); });
    // Shows in top/gdb; Linux limits names to 15 characters.
    const std::string name = std::string(task_type_name(type)) + "_" + std::to_string(i);
    pthread_setname_np(threads_.back().native_handle(), name.substr(0, 15).c_str());
  }
}

WorkerGroup::~WorkerGroup() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void WorkerGroup::push(std::shared_ptr<Task> task) {
  {
    MutexLock lock(mutex_);
    queue_.push_back(std::move(task));
  }
  queued_.notify_one();
}

void WorkerGroup::work() {
  for (;;) {
    std::shared_ptr<Task> task;
    {
      UniqueLock lock(mutex_);
      lock.wait(queued_, [this]() TERN_REQUIRES(mutex_) { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      running_.fetch_add(1, std::memory_order_relaxed);
    }
    runner_(task);
    running_.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace tern::executor
