// The epoll backend's worker loops: each thread runs one asio::io_context, whose reactor is
// epoll, and its connections' transports are asio sockets on it.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <thread>
#include <vector>

#include "net/connection.h"
#include "net/epoll_transport.h"
#include "net/worker_loops.h"

namespace tern::net {

namespace {

// The protocol (IPv4 or IPv6) of a connected socket, which asio needs to adopt it.
asio::ip::tcp protocol_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return address.ss_family == AF_INET6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4();
}

class EpollLoop final : public WorkerLoop {
 public:
  EpollLoop() : thread_([this] { loop_->run(); }) {}

  std::shared_ptr<LoopGate> gate() override { return gate_; }

  void serve(int fd, std::shared_ptr<Connection> connection) override {
    if (!loop_) {
      ::close(fd);
      return;
    }
    asio::error_code error;
    // Owned by the socket from here: a start that never runs (the loop stopped) closes it.
    asio::ip::tcp::socket socket(*loop_);
    socket.assign(protocol_of(fd), fd, error);
    if (error) {
      ::close(fd);
      return;
    }
    asio::post(*loop_, [socket = std::move(socket), connection = std::move(connection)]() mutable {
      connection->start(make_epoll_transport(std::move(socket)));
    });
  }

  void stop_running() {
    gate_->close();
    keep_running_.reset();
    if (loop_) loop_->stop();
  }

  // Destroys the work still queued, which frees the connections it holds.
  void join() {
    if (thread_.joinable()) thread_.join();
    loop_.reset();
  }

 private:
  // Hint 1: the loop is run by exactly one thread.
  std::optional<asio::io_context> loop_{std::in_place, 1};
  asio::executor_work_guard<asio::io_context::executor_type> keep_running_ =
      asio::make_work_guard(*loop_);
  const std::shared_ptr<LoopGate> gate_ = std::make_shared<LoopGate>(*loop_);
  std::thread thread_;  // last: it starts once everything it uses exists
};

class EpollLoops final : public WorkerLoops {
 public:
  explicit EpollLoops(unsigned threads) {
    for (unsigned i = 0; i < std::max(threads, 1u); ++i) {
      loops_.push_back(std::make_unique<EpollLoop>());
    }
  }
  ~EpollLoops() override { stop(); }

  WorkerLoop& next() override {
    WorkerLoop& loop = *loops_[next_];
    next_ = (next_ + 1) % loops_.size();
    return loop;
  }

  void stop() override {
    for (auto& loop : loops_) loop->stop_running();
    for (auto& loop : loops_) loop->join();
  }

 private:
  std::vector<std::unique_ptr<EpollLoop>> loops_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<WorkerLoops> start_epoll_loops(unsigned threads) {
  return std::make_unique<EpollLoops>(threads);
}

}  // namespace tern::net
