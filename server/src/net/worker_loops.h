#pragma once
// The threads that serve connections, each running one event loop of one I/O backend
// (epoll or io_uring, net/transport.h). A connection lives on one loop for its whole life,
// so its handlers never run concurrently and need no locks. Work that finishes on another
// thread reaches a loop through its gate (net/loop_gate.h).

#include <memory>

#include "net/loop_gate.h"

namespace tern::net {

class Connection;

// One worker thread's loop.
class WorkerLoop {
 public:
  virtual ~WorkerLoop() = default;

  // The way into this loop from any thread; closed when the loops stop.
  virtual std::shared_ptr<LoopGate> gate() = 0;

  // Serves the connected TCP socket `fd` (owned from now on, closed even if the loops have
  // stopped) with `connection`: on this loop, wraps the socket in a transport and starts
  // the connection on it. Thread-safe.
  virtual void serve(int fd, std::shared_ptr<Connection> connection) = 0;
};

class WorkerLoops {
 public:
  // Stops the loops, as stop() does.
  virtual ~WorkerLoops() = default;

  // The loop the next connection should live on (round-robin). Called from one thread.
  virtual WorkerLoop& next() = 0;

  // Stops every loop, closes their gates, joins the threads and frees the connections still
  // open. Idempotent; not thread-safe.
  virtual void stop() = 0;
};

// `threads` (at least one) loops on asio's epoll reactor.
std::unique_ptr<WorkerLoops> start_epoll_loops(unsigned threads);

}  // namespace tern::net
