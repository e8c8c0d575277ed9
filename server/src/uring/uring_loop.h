#pragma once
// One io_uring event loop: what a worker thread of the io_uring backend runs.
//
// A turn runs the work posted to the loop (its asio::io_context serves only as that queue:
// it owns no sockets or timers, so it never touches epoll), then submits every queued
// request of every connection and waits for at least one completion in a single
// io_uring_enter (bounded by the nearest deadline), then hands every completion that has
// arrived to its owner. Under load a turn reaps many completions, so a request costs much
// less than one syscall of its own.
//
// Completions find their owner by an id in user_data, never by a pointer: an owner that
// has gone is simply not found, and its late completions are ignored. Other threads reach
// the loop through gate(); a post wakes a sleeping loop through an eventfd the ring reads,
// and costs no syscall while the loop is awake.
//
// Everything but gate(), request_stop() and the destructor of a loop that never ran is
// called on the loop's thread.

#include <liburing.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include <asio.hpp>

#include "net/loop_gate.h"
#include "uring/ring.h"

namespace tern::uring {

// What a request was, in the low bits of its user_data (the owner's id is above them).
enum class Op : uint8_t { kWake, kStopCancel, kReceive, kSend, kCancel };

// What owns requests on the loop and hears their completions.
class Completer {
 public:
  virtual ~Completer() = default;
  // A completion of one of this owner's requests of kind `op`. A provided buffer it names
  // (IORING_CQE_F_BUFFER) is the owner's to give back (Ring::give_back).
  virtual void complete(Op op, const io_uring_cqe& cqe) = 0;
  // After every completion a turn reaped, if the owner asked for it (flush_after_reap()).
  virtual void flush() = 0;
  // A deadline this owner set has passed.
  virtual void deadline_passed() = 0;
  // The loop is stopping: release the socket and everything held, reporting nothing.
  virtual void close() = 0;
};

class UringLoop {
 public:
  using Clock = std::chrono::steady_clock;

  explicit UringLoop(const RingOptions& options = {});  // throws IoUringUnavailable
  // Stops, as stop() does, if run() did not.
  ~UringLoop();
  UringLoop(const UringLoop&) = delete;
  UringLoop& operator=(const UringLoop&) = delete;

  // The way into the loop from any thread; closed by stop().
  std::shared_ptr<net::LoopGate> gate() { return gate_; }
  // The queue of work for this loop, to post to from the loop's own thread.
  asio::io_context& context() { return *context_; }
  Ring& ring() { return ring_; }

  // Turns until request_stop(), then stop()s. The thread that calls it becomes the loop's.
  void run();
  // One turn, waiting at most `max_wait` for a completion (tests drive the loop this way).
  void turn(Clock::duration max_wait);
  // Thread-safe: makes run() return after its current turn.
  void request_stop();
  // Closes the gate and every owner, waits (bounded) for their requests to complete, and
  // destroys the work still queued, which frees what it held. Idempotent.
  void stop();
  bool stopped() const { return stopped_; }

  // Owners: add() gives an id to put in user_data (user_data()); remove() before the owner
  // is destroyed.
  uint64_t add(Completer& completer);
  void remove(uint64_t id);
  static uint64_t user_data(uint64_t id, Op op) { return id << 8 | static_cast<uint8_t>(op); }

  // A submission entry for a request that will complete (each is counted until its last
  // completion, so stop() knows when the kernel is done with the owners' memory).
  io_uring_sqe& sqe(uint64_t id, Op op);

  // Calls the owner's flush() once this turn's completions are all handled.
  void flush_after_reap(uint64_t id) { flushes_.push_back(id); }

  // Calls the owner's deadline_passed() once `when` has passed (if it is still there).
  void add_deadline(Clock::time_point when, uint64_t id);

  // Drops `held` from the loop's queue (at once once the loop has stopped).
  void release_later(std::shared_ptr<void> held);

  // Requests submitted and not yet finished, for tests.
  uint64_t in_flight() const { return in_flight_; }

 private:
  void turn_once(std::optional<Clock::duration> max_wait);
  void wake();
  void arm_wake_read();
  // Submits what is queued and waits for a completion, for at most `max_wait` and the
  // nearest deadline; not at all if posted work waits (when `run_posted`) or stop is asked.
  void submit_and_wait(std::optional<Clock::duration> max_wait, bool run_posted);
  void reap();
  void expire_deadlines();

  Ring ring_;
  std::optional<asio::io_context> context_{std::in_place, 1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running_{
      asio::make_work_guard(*context_)};
  const int wake_fd_;
  uint64_t wake_count_ = 0;  // what the eventfd read writes to
  std::shared_ptr<net::LoopGate> gate_;
  // Posted work may be waiting: set by wake() after each post, cleared before each poll().
  std::atomic<bool> posted_{false};
  // The loop is (about to be) blocked in the kernel: a post must write the eventfd.
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> stop_requested_{false};
  bool stopped_ = false;
  std::unordered_map<uint64_t, Completer*> completers_;
  uint64_t next_id_ = 1;  // 0 is the loop's own
  std::multimap<Clock::time_point, uint64_t> deadlines_;
  std::vector<uint64_t> flushes_;  // owners to flush after this reap
  std::vector<uint64_t> flushing_;  // the ones being flushed (kept to reuse its memory)
  uint64_t in_flight_ = 0;
};

}  // namespace tern::uring
