#pragma once
// A connection's socket on an io_uring loop (net/transport.h's io_uring backend).
//
// Input comes from a multishot receive that takes at most RingOptions::receive_limit bytes
// (uring/ring.h): each completion names a provided buffer; the bytes of every completion a
// turn brings are copied into the connection's space and reported as one delivery, so
// every complete request among them runs before one send, as a read of all that was
// waiting would have it. When the connection has not asked again by the end of a
// delivery, the receive is cancelled; what arrives before the cancel lands is still
// delivered, within the limit. A receive the kernel ends (its limit reached, out of
// buffers, or cancelled) is armed again after the delivery if the connection asks for
// more: so a client that sends without reading makes its connection hold at most the
// limit (and one buffer) beyond what it asked for, as on epoll, never the whole ring.
// A send is queued and goes with the loop's next submit, together with every other
// connection's; the rest of a partial send is queued again.
//
// Lifetime: each request holds the owner (and so this transport, which the owner owns)
// until its last completion, even after close(): the kernel may read a send's bytes until
// then. close() shuts the socket down at once but closes the descriptor only when no
// request names it any more, so its number cannot be reused under them. Ids in user_data
// find the transport; a completion that finds none is ignored. Single-threaded, on the
// loop's thread.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <system_error>
#include <utility>
#include <vector>

#include "net/transport.h"
#include "uring/uring_loop.h"

namespace tern::uring {

class UringTransport final : public net::Transport, private Completer {
 public:
  // Owns the connected socket `fd` from now on.
  UringTransport(UringLoop& loop, int fd);
  ~UringTransport() override;
  UringTransport(const UringTransport&) = delete;
  UringTransport& operator=(const UringTransport&) = delete;

  void start(std::shared_ptr<net::TransportEvents> owner) override;
  void receive() override;
  // Always queues (returns false): the loop submits every connection's sends together.
  bool send(std::span<const uint8_t> bytes) override;
  void linger(std::chrono::steady_clock::duration patience) override;
  void keep_open(bool keep) override;
  void close() override;
  void end_at(std::chrono::steady_clock::time_point when) override;

 private:
  // Completer.
  void complete(Op op, const io_uring_cqe& cqe) override;
  void flush() override;
  void deadline_passed() override;

  // Reports the input that arrived this turn as one delivery (or drops it if the owner no
  // longer hears), giving its buffers back.
  void deliver_arrived();
  void give_back_arrived();

  void on_receive(const io_uring_cqe& cqe);
  void on_send(int result);
  // Arms or cancels the multishot receive to match what the connection wants.
  void settle_receive();
  void queue_send();
  void cancel(Op op);
  void close_fd();
  // Whether the owner still hears from this transport.
  bool reporting() const { return !closed_ && !ended_; }
  // Reports ended() once, and stops taking input.
  void end(std::error_code error);
  // Holds the owner while requests are pending or keep_open holds, and no longer.
  void update_hold();

  UringLoop& loop_;
  const uint64_t id_;
  int fd_;
  net::TransportEvents* owner_ = nullptr;  // the owner owns this transport
  std::weak_ptr<net::TransportEvents> owner_ref_;
  std::shared_ptr<net::TransportEvents> hold_;
  unsigned requests_ = 0;  // submitted and not finished
  bool keep_ = false;
  bool wanted_ = false;         // the owner asked for input and has not had it
  bool receive_armed_ = false;  // a receive is pending
  bool receive_cancelling_ = false;
  bool peer_done_ = false;  // the peer closed its side
  bool lingering_ = false;
  UringLoop::Clock::time_point linger_until_;
  UringLoop::Clock::time_point deadline_ = UringLoop::Clock::time_point::max();  // end_at()
  // Input reaped this turn and not yet delivered: provided buffers, and bytes in each.
  std::vector<std::pair<uint16_t, uint32_t>> arrived_;
  std::span<const uint8_t> sending_;  // what remains of the send in progress
  bool send_pending_ = false;
  bool ended_ = false;
  bool closed_ = false;
};

}  // namespace tern::uring
