#include "uring/uring_transport.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace tern::uring {

UringTransport::UringTransport(UringLoop& loop, int fd)
    : loop_(loop), id_(loop.add(*this)), fd_(fd) {}

UringTransport::~UringTransport() {
  give_back_arrived();
  loop_.remove(id_);
  close_fd();
}

void UringTransport::start(std::shared_ptr<net::TransportEvents> owner) {
  owner_ = owner.get();
  owner_ref_ = std::move(owner);
}

void UringTransport::receive() {
  if (!reporting()) return;
  wanted_ = true;
  settle_receive();
}

bool UringTransport::send(std::span<const uint8_t> bytes) {
  if (!reporting()) return false;
  sending_ = bytes;
  queue_send();
  return false;
}

void UringTransport::linger(std::chrono::steady_clock::duration patience) {
  if (!reporting() || lingering_) return;
  lingering_ = true;
  ::shutdown(fd_, SHUT_WR);
  if (peer_done_) {
    // Nothing more can arrive; report on the loop, not inside the owner's call.
    asio::post(loop_.context(), [this, guard = owner_ref_.lock()] {
      if (reporting()) end({});
    });
    return;
  }
  linger_until_ = UringLoop::Clock::now() + patience;
  loop_.add_deadline(linger_until_, id_);
  settle_receive();
}

void UringTransport::keep_open(bool keep) {
  if (closed_) return;
  keep_ = keep;
  update_hold();
}

void UringTransport::close() {
  if (closed_) return;
  closed_ = true;
  give_back_arrived();
  if (receive_armed_ && !receive_cancelling_) {
    cancel(Op::kReceive);
    receive_cancelling_ = true;
  }
  if (send_pending_) cancel(Op::kSend);
  // The peer sees the end now. The descriptor itself stays until the kernel is done with
  // every request naming it (some may not be submitted yet): closed earlier, its number
  // could be reused by the next accepted socket, which they would then reach.
  ::shutdown(fd_, SHUT_RDWR);
  keep_ = false;
  if (requests_ == 0) close_fd();
  update_hold();
}

void UringTransport::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void UringTransport::complete(Op op, const io_uring_cqe& cqe) {
  // The owner (and so this transport) must survive what the owner does when told.
  const auto guard = owner_ref_.lock();
  const bool last = !(cqe.flags & IORING_CQE_F_MORE);
  if (op == Op::kReceive) {
    on_receive(cqe);
  } else if (op == Op::kSend) {
    on_send(cqe.res);
  }
  if (last) {
    --requests_;
    if (closed_ && requests_ == 0) close_fd();
    update_hold();
  }
}

void UringTransport::end_at(std::chrono::steady_clock::time_point when) {
  if (!reporting()) return;
  deadline_ = when;
  if (when != UringLoop::Clock::time_point::max()) loop_.add_deadline(when, id_);
}

void UringTransport::deadline_passed() {
  const auto guard = owner_ref_.lock();
  // The loop calls this for every deadline ever set, also those replaced or cleared since.
  const auto now = UringLoop::Clock::now();
  if (reporting() && ((lingering_ && now >= linger_until_) || now >= deadline_)) {
    end(std::make_error_code(std::errc::timed_out));
    settle_receive();
  }
}

void UringTransport::on_receive(const io_uring_cqe& cqe) {
  if (!(cqe.flags & IORING_CQE_F_MORE)) {
    receive_armed_ = false;
    receive_cancelling_ = false;
  }
  const int result = cqe.res;
  if (result > 0) {
    const auto buffer = static_cast<uint16_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
    if (reporting() && !lingering_) {
      // Delivered with whatever else this turn brings (flush()): one batch per turn.
      if (arrived_.empty()) loop_.flush_after_reap(id_);
      arrived_.push_back({buffer, static_cast<uint32_t>(result)});
    } else {
      loop_.ring().give_back(buffer);  // lingering input is dropped
    }
  } else if (result == 0) {
    peer_done_ = true;
    deliver_arrived();
    if (reporting()) {
      if (lingering_) {
        end({});
      } else {
        wanted_ = false;
        owner_->peer_closed();
      }
    }
  } else if (result != -ENOBUFS && result != -ECANCELED) {
    // ENOBUFS: every provided buffer was in use (this turn gives them all back before the
    // next submit): armed again below.
    // ECANCELED: our own cancel, or close().
    deliver_arrived();
    if (reporting()) end(std::error_code(-result, std::system_category()));
  }
  // Input awaiting delivery: flush() settles once the connection has heard of it, so a
  // receive that ended at its limit is armed again only if the connection asks for more.
  if (arrived_.empty()) settle_receive();
}

void UringTransport::flush() {
  const auto guard = owner_ref_.lock();
  deliver_arrived();
  settle_receive();
}

void UringTransport::deliver_arrived() {
  if (arrived_.empty()) return;
  if (!reporting() || lingering_) {
    give_back_arrived();
    return;
  }
  size_t total = 0;
  for (const auto& [buffer, length] : arrived_) total += length;
  uint8_t* space = owner_->receive_space(total).data();
  for (const auto& [buffer, length] : arrived_) {
    std::memcpy(space, loop_.ring().buffer(buffer, length).data(), length);
    space += length;
    loop_.ring().give_back(buffer);
  }
  arrived_.clear();
  wanted_ = false;
  owner_->received(total);
}

void UringTransport::give_back_arrived() {
  for (const auto& [buffer, length] : arrived_) loop_.ring().give_back(buffer);
  arrived_.clear();
}

void UringTransport::on_send(int result) {
  send_pending_ = false;
  if (!reporting()) return;
  if (result <= 0) {
    end(result < 0 ? std::error_code(-result, std::system_category())
                   : std::make_error_code(std::errc::broken_pipe));
    settle_receive();
    return;
  }
  sending_ = sending_.subspan(static_cast<size_t>(result));
  if (!sending_.empty()) {
    queue_send();
    return;
  }
  owner_->sent();
}

void UringTransport::settle_receive() {
  if (closed_) return;
  const bool want = !ended_ && !peer_done_ && (wanted_ || lingering_);
  if (want && !receive_armed_) {
    loop_.ring().prep_limited_receive(loop_.sqe(id_, Op::kReceive), fd_);
    receive_armed_ = true;
    ++requests_;
    update_hold();
  } else if (!want && receive_armed_ && !receive_cancelling_) {
    cancel(Op::kReceive);
    receive_cancelling_ = true;
  }
}

void UringTransport::queue_send() {
  io_uring_sqe& entry = loop_.sqe(id_, Op::kSend);
  io_uring_prep_send(&entry, fd_, sending_.data(), sending_.size(), MSG_NOSIGNAL);
  send_pending_ = true;
  ++requests_;
  update_hold();
}

void UringTransport::cancel(Op op) {
  io_uring_prep_cancel64(&loop_.sqe(id_, Op::kCancel), UringLoop::user_data(id_, op), 0);
  ++requests_;
  update_hold();
}

void UringTransport::end(std::error_code error) {
  ended_ = true;
  owner_->ended(error);
}

void UringTransport::update_hold() {
  const bool needed = requests_ > 0 || keep_;
  if (needed && hold_ == nullptr) {
    hold_ = owner_ref_.lock();
  } else if (!needed && hold_ != nullptr) {
    // Dropping the last reference frees the owner and this transport with it: never inside
    // a call the owner (or the loop's stop()) is making, so it happens on the loop, after.
    loop_.release_later(std::move(hold_));
  }
}

}  // namespace tern::uring
