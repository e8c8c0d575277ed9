#pragma once
// A way into one event loop from any thread that stays safe once the loop is gone. Work that
// finishes on another thread (a durable write persisted by the flusher) posts its completion
// through the gate of the loop that owns the connection; the worker pool closes the gate before
// it destroys the loop, and from then on posts are dropped instead of reaching freed memory.
// Thread-safe; post() never blocks for longer than a queue insertion (and the wake-up).

#include <functional>
#include <utility>

#include <asio.hpp>

#include "common/mutex.h"

namespace tern::net {

class LoopGate {
 public:
  // `loop` runs what is posted. A loop that does not sleep inside asio (io_uring's, which
  // runs `loop` with poll() once per turn) passes `wake`, called after each post, so that
  // it notices the work.
  explicit LoopGate(asio::io_context& loop, std::function<void()> wake = {})
      : loop_(&loop), wake_(std::move(wake)) {}
  LoopGate(const LoopGate&) = delete;
  LoopGate& operator=(const LoopGate&) = delete;

  // Queues `handler` to run on the loop; drops it if the gate is closed.
  template <class Handler>
  void post(Handler&& handler) {
    MutexLock lock(mutex_);
    if (loop_ == nullptr) return;
    asio::post(*loop_, std::forward<Handler>(handler));
    if (wake_) wake_();
  }

  // Refuses every later post. Call before the loop is destroyed.
  void close() {
    MutexLock lock(mutex_);
    loop_ = nullptr;
  }

 private:
  Mutex mutex_;
  asio::io_context* loop_ TERN_GUARDED_BY(mutex_);  // null once closed
  const std::function<void()> wake_;  // called under the lock, so never after close()
};

}  // namespace tern::net
