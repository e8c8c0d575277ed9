#pragma once
// A one-shot result that one thread waits for and another provides.

#include <condition_variable>
#include <mutex>

namespace tern::executor {

class Completion {
 public:
  // Called once. The waiter may destroy the object as soon as this returns.
  void complete(bool result) {
    // Notify while holding the lock: the waiter cannot return (and free this) before unlock.
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = result;
    done_ = true;
    ready_.notify_one();
  }

  bool wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [this] { return done_; });
    return result_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  bool done_ = false;
  bool result_ = false;
};

}  // namespace tern::executor
