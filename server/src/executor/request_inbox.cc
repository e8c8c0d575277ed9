#include "executor/request_inbox.h"

#include <chrono>

namespace tern::executor {

bool RequestInbox::post(Request&& request) {
  bool wake_taker;
  {
    UniqueLock lock(mutex_);
    if (pending_.size() >= kMaxPending && !closed_) {
      ++blocked_posters_;
      lock.wait(drained_, [this]() TERN_REQUIRES(mutex_) {
        return pending_.size() < kMaxPending || closed_;
      });
      --blocked_posters_;
    }
    if (closed_) return false;
    pending_.push_back(std::move(request));
    wake_taker = sleeping_;
    sleeping_ = false;
  }
  if (wake_taker) arrived_.notify_one();
  return true;
}

bool RequestInbox::take(std::vector<Request>& batch, int64_t deadline_ms) {
  UniqueLock lock(mutex_);
  if (pending_.empty() && !closed_) {
    sleeping_ = true;
    auto woken = [this]() TERN_REQUIRES(mutex_) { return !pending_.empty() || closed_; };
    if (deadline_ms == kNeverMs) {
      lock.wait(arrived_, woken);
    } else {
      // Same origin as SystemClock::steady_ms().
      const std::chrono::steady_clock::time_point deadline{std::chrono::milliseconds(deadline_ms)};
      lock.wait_until(arrived_, deadline, woken);
    }
    sleeping_ = false;
  }
  if (closed_ && pending_.empty()) return false;
  batch.swap(pending_);
  const bool wake_posters = blocked_posters_ > 0;
  lock.unlock();
  if (wake_posters) drained_.notify_all();
  return true;
}

void RequestInbox::close() {
  {
    MutexLock lock(mutex_);
    closed_ = true;
  }
  arrived_.notify_all();
  drained_.notify_all();
}

size_t RequestInbox::blocked_posters() {
  MutexLock lock(mutex_);
  return blocked_posters_;
}

}  // namespace tern::executor
