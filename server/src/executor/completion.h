#pragma once
// A one-shot result that one thread waits for and another provides.

#include <condition_variable>

#include "common/mutex.h"

namespace tern::executor {

class Completion {
 public:
  // Called once. The waiter may destroy the object as soon as this returns.
  void complete(bool result) {
    // Notify while holding the lock: the waiter cannot return (and free this) before unlock.
    MutexLock lock(mutex_);
    result_ = result;
    done_ = true;
    ready_.notify_one();
  }

  bool wait() {
    UniqueLock lock(mutex_);
    lock.wait(ready_, [this]() TERN_REQUIRES(mutex_) { return done_; });
    return result_;
  }

 private:
  Mutex mutex_;
  std::condition_variable ready_;
  bool done_ TERN_GUARDED_BY(mutex_) = false;
  bool result_ TERN_GUARDED_BY(mutex_) = false;
};

}  // namespace tern::executor
