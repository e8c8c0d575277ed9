#include "net/epoll_transport.h"

#include <utility>

namespace tern::net {

namespace {

class EpollTransport final : public Transport {
 public:
  explicit EpollTransport(asio::ip::tcp::socket socket)
      : socket_(std::move(socket)),
        linger_timer_(socket_.get_executor()),
        keep_open_timer_(socket_.get_executor()),
        deadline_timer_(socket_.get_executor()) {}

  void start(std::shared_ptr<TransportEvents> owner) override {
    owner_ = owner;
    asio::error_code ignored;
    socket_.non_blocking(true, ignored);
  }

  void receive() override {
    // A socket the last read drained is read again at the end of the loop's turn, after the
    // other connections' handlers: by then a client that waits for each answer has usually
    // sent its next request, and the read takes it. Reading at once would find the socket
    // empty (a receive that fails), and waiting for readability first costs an epoll_ctl,
    // since asio's edge-triggered reactor re-arms the socket for every wait: either way a
    // third syscall per request, where memcached, level-triggered, makes two.
    if (drained_) {
      asio::post(socket_.get_executor(), [this, owner = owner_.lock()] {
        if (!closed_) read_some(std::move(owner));
      });
      return;
    }
    read_some(owner_.lock());
  }

  bool send(std::span<const uint8_t> bytes) override {
    asio::error_code error;
    const size_t sent = socket_.write_some(asio::buffer(bytes.data(), bytes.size()), error);
    if (!error && sent == bytes.size()) return true;
    // What is left, or the failure, is reported from the loop, as the contract asks.
    asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()) + sent,
                      [this, owner = owner_.lock()](const asio::error_code& write_error, size_t) {
                        if (closed_) return;
                        if (write_error) {
                          owner->ended(write_error);
                        } else {
                          owner->sent();
                        }
                      });
    return false;
  }

  void linger(std::chrono::steady_clock::duration patience) override {
    asio::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    auto owner = owner_.lock();
    linger_timer_.expires_after(patience);
    linger_timer_.async_wait([this, owner](const asio::error_code&) {
      if (!closed_) owner->ended({});
    });
    discard_input(std::move(owner));
  }

  void keep_open(bool keep) override {
    if (!keep) {
      keep_open_timer_.cancel();
      return;
    }
    keep_open_timer_.expires_at(asio::steady_timer::time_point::max());
    keep_open_timer_.async_wait([owner = owner_.lock()](const asio::error_code&) {});
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    linger_timer_.cancel();
    keep_open_timer_.cancel();
    deadline_timer_.cancel();
    asio::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  void end_at(std::chrono::steady_clock::time_point when) override {
    if (closed_) return;
    if (when == std::chrono::steady_clock::time_point::max()) {
      deadline_timer_.cancel();
      return;
    }
    deadline_timer_.expires_at(when);
    // Holds the owner weakly: while it lives, so does this transport.
    deadline_timer_.async_wait([this, weak = owner_](const asio::error_code& error) {
      const auto owner = weak.lock();
      if (owner == nullptr || error || closed_) return;
      owner->ended(std::make_error_code(std::errc::timed_out));
    });
  }

 private:
  void read_some(std::shared_ptr<TransportEvents> owner) {
    auto space = owner->receive_space(1);
    socket_.async_read_some(
        asio::buffer(space.data(), space.size()),
        [this, owner, offered = space.size()](const asio::error_code& error, size_t n) {
          on_read(*owner, error, n, offered);
        });
  }

  void on_read(TransportEvents& owner, const asio::error_code& error, size_t n,
               size_t offered) {
    drained_ = false;
    if (closed_) return;
    if (error == asio::error::eof) {
      owner.peer_closed();
    } else if (error) {
      owner.ended(error);
    } else {
      // Only a read that came up short proves the socket empty, and only until the loop runs
      // again: a receive the owner does not ask for now begins with a try.
      drained_ = n < offered;
      owner.received(n);
      drained_ = false;
    }
  }

  void discard_input(std::shared_ptr<TransportEvents> owner) {
    uint8_t* space = discard_space_;
    socket_.async_read_some(asio::buffer(space, sizeof discard_space_),
                            [this, owner](const asio::error_code& error, size_t) {
                              if (closed_) return;
                              if (error) {
                                owner->ended(error == asio::error::eof ? asio::error_code{}
                                                                       : error);
                              } else {
                                discard_input(owner);
                              }
                            });
  }

  asio::ip::tcp::socket socket_;
  asio::steady_timer linger_timer_;  // bounds how long linger() waits for the peer
  // Armed by keep_open(true): its pending wait holds the owner alive, and the loop's end
  // frees it like any pending handler.
  asio::steady_timer keep_open_timer_;
  asio::steady_timer deadline_timer_;  // end_at()
  std::weak_ptr<TransportEvents> owner_;
  uint8_t discard_space_[4096];
  bool drained_ = false;  // the read being reported drained the socket
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<Transport> make_epoll_transport(asio::ip::tcp::socket socket) {
  return std::make_unique<EpollTransport>(std::move(socket));
}

}  // namespace tern::net
