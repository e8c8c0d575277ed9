#pragma once
// Worker loops on io_uring (liburing): the io_uring backend of net/worker_loops.h.
//
// Each loop owns one ring. A connection's input comes from a multishot receive that takes
// buffers from a ring of provided buffers shared by the loop's connections, so a request
// costs no receive syscall of its own; its answers are queued as send requests, and the
// loop submits everything queued on every connection, and waits for the next completions,
// in one io_uring_enter per turn. Work posted from other threads (LoopGate) wakes the loop
// through an eventfd the ring watches; the loop runs it with its asio::io_context's poll().

#include <memory>
#include <stdexcept>

#include "net/worker_loops.h"

namespace tern::uring {

// The kernel refused io_uring, or a feature the loops need (locked-down containers answer
// EPERM; old kernels ENOSYS or EINVAL). what() names the call and the error.
class IoUringUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `threads` (at least one) loops on io_uring. Throws IoUringUnavailable, having started
// nothing, if the kernel refuses any ring or feature they need.
std::unique_ptr<net::WorkerLoops> start_uring_loops(unsigned threads);

}  // namespace tern::uring
