#include "uring/uring_loop.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "uring/uring_loops.h"

namespace tern::uring {

namespace {

// How long stop() waits for the kernel to finish the requests it cancelled. Cancellation is
// immediate for sockets; this bounds a kernel that misbehaves, and is never reached.
constexpr auto kStopDrainLimit = std::chrono::seconds(5);

int make_eventfd() {
  // Blocking: the ring's read of it then waits for a post instead of failing with EAGAIN.
  const int fd = eventfd(0, EFD_CLOEXEC);
  if (fd < 0) throw IoUringUnavailable(std::string("eventfd: ") + std::strerror(errno));
  return fd;
}

__kernel_timespec to_timespec(UringLoop::Clock::duration wait) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::max(wait, UringLoop::Clock::duration::zero()))
                      .count();
  return {.tv_sec = ns / 1'000'000'000, .tv_nsec = ns % 1'000'000'000};
}

}  // namespace

UringLoop::UringLoop(const RingOptions& options)
    : ring_(options),
      wake_fd_(make_eventfd()),
      gate_(std::make_shared<net::LoopGate>(*context_, [this] { wake(); })) {
  arm_wake_read();
}

UringLoop::~UringLoop() {
  stop();
  ::close(wake_fd_);
}

void UringLoop::run() {
  while (!stop_requested_.load()) turn_once(std::nullopt);
  stop();
}

void UringLoop::turn(Clock::duration max_wait) { turn_once(max_wait); }

void UringLoop::turn_once(std::optional<Clock::duration> max_wait) {
  posted_.store(false);
  context_->poll();
  submit_and_wait(max_wait, /*run_posted=*/true);
  reap();
  expire_deadlines();
}

void UringLoop::request_stop() {
  stop_requested_.store(true);
  const int ignored = eventfd_write(wake_fd_, 1);
  (void)ignored;
}

void UringLoop::stop() {
  if (stopped_) return;
  stopped_ = true;
  gate_->close();
  std::vector<uint64_t> ids;
  ids.reserve(completers_.size());
  for (const auto& [id, completer] : completers_) ids.push_back(id);
  for (const uint64_t id : ids) {
    auto it = completers_.find(id);
    if (it != completers_.end()) it->second->close();
  }
  // Everything still pending (the owners' cancels may race with the requests they name).
  io_uring_prep_cancel64(&sqe(0, Op::kStopCancel), 0,
                         IORING_ASYNC_CANCEL_ALL | IORING_ASYNC_CANCEL_ANY);
  const auto limit = Clock::now() + kStopDrainLimit;
  while (in_flight_ > 0 && Clock::now() < limit) {
    submit_and_wait(std::chrono::milliseconds(100), /*run_posted=*/false);
    reap();
  }
  if (in_flight_ > 0) spdlog::error("io_uring loop stopped with {} requests pending", in_flight_);
  // The work never run holds connections (and released holds): destroying it frees them.
  keep_running_.reset();
  context_.reset();
}

uint64_t UringLoop::add(Completer& completer) {
  const uint64_t id = next_id_++;
  completers_.emplace(id, &completer);
  return id;
}

void UringLoop::remove(uint64_t id) { completers_.erase(id); }

io_uring_sqe& UringLoop::sqe(uint64_t id, Op op) {
  io_uring_sqe& entry = ring_.sqe();
  io_uring_sqe_set_data64(&entry, user_data(id, op));
  ++in_flight_;
  return entry;
}

void UringLoop::release_later(std::shared_ptr<void> held) {
  if (context_) asio::post(*context_, [held = std::move(held)] {});
}

void UringLoop::add_deadline(Clock::time_point when, uint64_t id) {
  deadlines_.emplace(when, id);
}

// Dekker with the loop's check in submit_and_wait(): either this sees it sleeping and writes
// the eventfd, or the loop sees `posted_` and does not sleep.
void UringLoop::wake() {
  posted_.store(true);
  if (sleeping_.load()) {
    const int ignored = eventfd_write(wake_fd_, 1);
    (void)ignored;
  }
}

void UringLoop::arm_wake_read() {
  io_uring_prep_read(&sqe(0, Op::kWake), wake_fd_, &wake_count_, sizeof wake_count_, 0);
}

void UringLoop::submit_and_wait(std::optional<Clock::duration> max_wait, bool run_posted) {
  ring_.enable_here();
  io_uring& ring = ring_.get();
  if (!deadlines_.empty()) {
    const auto until = deadlines_.begin()->first - Clock::now();
    max_wait = max_wait ? std::min(*max_wait, until) : until;
  }
  sleeping_.store(true);
  const bool awake = (run_posted && (posted_.load() || stop_requested_.load())) ||
                     (max_wait && *max_wait <= Clock::duration::zero());
  io_uring_cqe* cqe = nullptr;
  if (awake) {
    // Still one entry, to collect what has completed: with deferred task running the
    // kernel posts completions only when the loop's thread asks for them.
    io_uring_submit_and_get_events(&ring);
  } else if (max_wait) {
    __kernel_timespec timeout = to_timespec(*max_wait);
    io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &timeout, nullptr);
  } else {
    io_uring_submit_and_wait(&ring, 1);
  }
  sleeping_.store(false);
}

void UringLoop::reap() {
  io_uring& ring = ring_.get();
  unsigned head;
  unsigned count = 0;
  io_uring_cqe* cqe;
  io_uring_for_each_cqe(&ring, head, cqe) {
    ++count;
    const bool last = !(cqe->flags & IORING_CQE_F_MORE);
    if (last) --in_flight_;
    const uint64_t id = cqe->user_data >> 8;
    const auto op = static_cast<Op>(cqe->user_data & 0xff);
    if (id == 0) {
      if (op == Op::kWake && !stopped_) arm_wake_read();
    } else if (auto it = completers_.find(id); it != completers_.end()) {
      it->second->complete(op, *cqe);
    } else if (cqe->flags & IORING_CQE_F_BUFFER) {
      // Input for an owner that is gone: the buffer serves the next receive.
      ring_.give_back(static_cast<uint16_t>(cqe->flags >> IORING_CQE_BUFFER_SHIFT));
    }
  }
  io_uring_cq_advance(&ring, count);
  std::swap(flushes_, flushing_);
  for (const uint64_t id : flushing_) {
    if (auto it = completers_.find(id); it != completers_.end()) it->second->flush();
  }
  flushing_.clear();
}

void UringLoop::expire_deadlines() {
  const auto now = Clock::now();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const uint64_t id = deadlines_.begin()->second;
    deadlines_.erase(deadlines_.begin());
    if (auto it = completers_.find(id); it != completers_.end()) it->second->deadline_passed();
  }
}

}  // namespace tern::uring
