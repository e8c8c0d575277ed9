#pragma once
// N threads, each running its own event loop. A connection lives on one loop for its whole
// life, so its handlers never run concurrently and need no locks.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <asio.hpp>

#include "net/loop_gate.h"

namespace tern::net {

class WorkerPool {
 public:
  // Starts `threads` (at least one) threads, each running an event loop until stop().
  explicit WorkerPool(unsigned threads);
  // Stops and joins, as stop() does.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The loop the next connection should live on (round-robin). Called from one thread.
  asio::io_context& next();

  // The gate into `loop`, one of this pool's (else null): what completions that finish on
  // other threads post through. Closed by stop(), before the loop is destroyed.
  std::shared_ptr<LoopGate> gate_of(const asio::io_context& loop) const;

  // Stops every loop, closes their gates, joins the threads and destroys the work still
  // queued there (which closes the connections it holds). Idempotent; not thread-safe.
  void stop();

 private:
  struct Worker;
  std::vector<std::unique_ptr<Worker>> workers_;
  size_t next_ = 0;
};

}  // namespace tern::net
